/**
 * What a revoked credential's open pages are told as their sockets close: which credential
 * ended (a named token, or a share link) and who ended it, so the page can say so and clear
 * what it showed. The web app tells the two apart by the words "the token" and "share link".
 */

/** A WebSocket close reason is at most 123 bytes of UTF-8. */
const CLOSE_REASON_MAX_BYTES = 123;
/** A token's name is cut to this many characters in the reason (names are up to 64). */
const NAME_CHARS = 40;

export interface RevokedCredential {
  readonly name: string;
  /** Who revoked it (a display name). */
  readonly by: string;
  /** A share link, as opposed to a minted token. */
  readonly link: boolean;
}

function cut(text: string, chars: number): string {
  const points = [...text];
  return points.length <= chars ? text : `${points.slice(0, chars - 1).join('')}…`;
}

/** `the token "ci-viewer" was revoked by admin` / `the share link was revoked by Olive`. */
export function revokedReason({ name, by, link }: RevokedCredential): string {
  const what = link ? 'the share link' : `the token ${JSON.stringify(cut(name, NAME_CHARS))}`;
  let reason = `${what} was revoked by ${cut(by, NAME_CHARS)}`;
  const encoder = new TextEncoder();
  while (encoder.encode(reason).length > CLOSE_REASON_MAX_BYTES)
    reason = [...reason].slice(0, -1).join('');
  return reason;
}
