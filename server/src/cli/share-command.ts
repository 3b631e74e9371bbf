/**
 * `jumpseat share`: share links to one shell from the terminal — create one (its URL is
 * printed alone on a line), list a shell's links, revoke one.
 */
import type { JumpseatClient } from '../../../client/src/index.ts';
import { MAX_SHARE_SECONDS } from '../../../shared/src/vocabulary.ts';
import { CONNECTION_HELP, UsageError } from './connection.ts';
import { textTable } from './text-table.ts';

export const SHARE_HELP = `Usage: jumpseat share create SESSION [--role viewer|operator] [--expires-in SECONDS]
       jumpseat share list SESSION
       jumpseat share revoke SESSION SHARE_ID

A share link reaches one shell only: its holder watches (viewer, the default) or may also
take the controls (operator). create prints the link alone on a line, shown this once; send
it to the person, who gives their name when they open it. Revoking disconnects them at once.
Needs the token that opened the shell, or the admin token.

  --role ROLE          viewer (watch only) or operator (watch and type)
  --expires-in SECONDS the link stops working after this long (60 to ${MAX_SHARE_SECONDS}); default never

${CONNECTION_HELP}
`;

export const SHARE_OPTIONS = {
  role: { type: 'string' },
  'expires-in': { type: 'string' },
} as const;

export interface ShareValues {
  readonly role?: string | boolean;
  readonly 'expires-in'?: string | boolean;
}

/** Runs one `share` action; resolves with what to print. */
export async function runShare(
  client: JumpseatClient,
  values: ShareValues,
  positionals: readonly string[],
): Promise<string> {
  const [action, session, shareId, ...extra] = positionals;
  if (session === undefined || session === '') {
    throw new UsageError('give the action (create, list, revoke) and the session id');
  }
  const expect = (count: number): void => {
    const unexpected = [shareId, ...extra].slice(count)[0];
    if (unexpected !== undefined) throw new UsageError(`unexpected ${unexpected}`);
  };
  switch (action) {
    case 'create': {
      expect(0);
      const role = values.role ?? 'viewer';
      if (role !== 'viewer' && role !== 'operator') {
        throw new UsageError('--role must be viewer or operator');
      }
      const expiresInSeconds = secondsOf(values['expires-in']);
      const created = await client.share(session, {
        role,
        ...(expiresInSeconds === undefined ? {} : { expiresInSeconds }),
      });
      return `${created.url}\n`;
    }
    case 'list': {
      expect(0);
      const shares = await client.shares(session);
      return textTable(
        ['ID', 'ROLE', 'NAME', 'EXPIRES'],
        shares.map((share) => [
          share.id,
          share.role,
          share.name ?? '-',
          share.expiresAt ?? 'never',
        ]),
      );
    }
    case 'revoke': {
      if (shareId === undefined) throw new UsageError('give the share id to revoke');
      expect(1);
      await client.revokeShare(session, shareId);
      return '';
    }
    default:
      throw new UsageError(`unknown share action ${JSON.stringify(action)}`);
  }
}

function secondsOf(value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(seconds) || seconds < 60 || seconds > MAX_SHARE_SECONDS) {
    throw new UsageError(
      `--expires-in must be a whole number of seconds from 60 to ${MAX_SHARE_SECONDS}`,
    );
  }
  return seconds;
}
