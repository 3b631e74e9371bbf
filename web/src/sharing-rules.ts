/**
 * The words and the one rule the sharing UI decides by, kept free of the DOM so they are
 * tested alone: who may manage a shell from its page, what the control badge says, and how
 * a link's expiry reads.
 */
import type { SessionInfo, ShareInfo, WhoAmI } from '../../shared/src/api.ts';
import type { Viewer } from '../../shared/src/live.ts';

/**
 * Whether the page offers sharing (and, for a person's shell, hand-off and close): the admin
 * on any shell, a person on the shells they opened (with this very token, as the server
 * decides too); never a share link's holder. The server decides again on every request.
 */
export function managesShell(who: WhoAmI | null, session: SessionInfo): boolean {
  if (who === null || who.scope !== null) return false;
  return who.role === 'admin' || opened(who, session);
}

/** This token opened the shell (two people may share a name; never a token). */
export function opened(who: WhoAmI | null, session: SessionInfo): boolean {
  return who !== null && session.ownerId !== undefined && session.ownerId === who.id;
}

/**
 * A person's name as every page shows it: a share link's holder named themselves, so "(link)"
 * follows, and nobody takes the link's "Ann" for the admin's Ann (issue 21).
 */
export function shownName(who: { readonly name: string; readonly link?: boolean }): string {
  return who.link === true ? `${who.name} (link)` : who.name;
}

/** The control badge: who types, in words. */
export function controlText(
  mine: boolean,
  controller: Viewer | null,
  canControl: boolean,
  session: SessionInfo | null,
): string {
  if (mine) return 'You have control — type in the terminal';
  if (controller !== null) return `${shownName(controller)} has control`;
  const idle = session?.agent === null ? 'Nobody is typing' : 'The agent has the shell';
  return canControl ? idle : `${idle} · you are watching`;
}

/** `no expiry`, `expired`, `until 14:05` today, else the date and time. */
export function expiryLabel(share: Pick<ShareInfo, 'expiresAt'>, now: Date): string {
  if (share.expiresAt === null) return 'no expiry';
  const at = new Date(share.expiresAt);
  if (at.getTime() <= now.getTime()) return 'expired';
  const when =
    at.toDateString() === now.toDateString()
      ? at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hour12: false })
      : at.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short', hour12: false });
  return `until ${when}`;
}
