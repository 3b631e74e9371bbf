/**
 * `jumpseat token`: mint a token (printed alone on a line, shown this once), list every
 * minted token and share link, rename a minted token, revoke any. Admin token needed.
 */
import type { JumpseatClient } from '../../../client/src/index.ts';
import { parseLabel } from '../../../shared/src/labels.ts';
import { ROLES, type RoleName } from '../../../shared/src/vocabulary.ts';
import { terminalSafeJson } from '../ops/terminal-safe.ts';
import { CONNECTION_HELP, UsageError } from './connection.ts';
import { textTable } from './text-table.ts';

export const TOKEN_HELP = `Usage: jumpseat token create --role ROLE [--agent AGENT] [--name NAME] [--label KEY=VALUE...]
       jumpseat token list [--json]
       jumpseat token rename TOKEN_ID --name NAME
       jumpseat token revoke TOKEN_ID

Manages tokens (admin token needed). create mints one and prints it alone on a line, shown
this once; its name is what others see next to what its holder does, and only the admin
sets it. list shows every minted token and share link (never a secret): id, name, role,
scope, created, last used. revoke stops a token at once: its holder's connections close.

  --role ROLE        ${ROLES.join(', ')}
  --agent AGENT      the agent a token of role agent may call (required for that role)
  --name NAME        the token's display name (default: the role, or agent:AGENT); for role
                     host the host's name, bound to the token (required)
  --label KEY=VALUE  role agent: a placement label; the agent's shells start only on hosts
                     with every label (repeatable)
  --json             list: print the server's JSON instead of a table

${CONNECTION_HELP}
`;

export const TOKEN_OPTIONS = {
  role: { type: 'string' },
  agent: { type: 'string' },
  name: { type: 'string' },
  label: { type: 'string', multiple: true },
  json: { type: 'boolean' },
} as const;

export interface TokenValues {
  readonly role?: string | boolean;
  readonly agent?: string | boolean;
  readonly name?: string | boolean;
  readonly label?: readonly (string | boolean)[] | string | boolean;
  readonly json?: string | boolean;
}

/** Runs one `token` action; resolves with what to print. */
export async function runToken(
  client: JumpseatClient,
  values: TokenValues,
  positionals: readonly string[],
): Promise<string> {
  const [action, id, ...extra] = positionals;
  const none = (count: number): void => {
    const unexpected = [id, ...extra].slice(count)[0];
    if (unexpected !== undefined) throw new UsageError(`unexpected ${unexpected}`);
  };
  const name = typeof values.name === 'string' ? values.name : undefined;
  switch (action) {
    case 'create': {
      none(0);
      const role = ROLES.find((candidate: RoleName) => candidate === values.role);
      if (role === undefined) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
      // Told here, before any request: the server would refuse it with a 400.
      if (role === 'agent' && typeof values.agent !== 'string') {
        throw new UsageError('--role agent needs --agent AGENT: the agent the token may call');
      }
      if (role !== 'agent' && values.agent !== undefined) {
        throw new UsageError(`--agent is for --role agent only, not --role ${role}`);
      }
      const labels = labelsOf(values.label);
      const minted = await client.createToken({
        role,
        ...(typeof values.agent === 'string' ? { agent: values.agent } : {}),
        ...(name === undefined ? {} : { name }),
        ...(labels === undefined ? {} : { labels }),
      });
      return `${minted.token}\n`;
    }
    case 'list': {
      none(0);
      const list = await client.tokens();
      if (values.json === true) return `${terminalSafeJson(list)}\n`;
      return textTable(
        ['ID', 'NAME', 'ROLE', 'SCOPE', 'CREATED', 'LAST USED', 'STATUS'],
        list.map((token) => [
          token.id,
          token.link ? `${token.name} (link)` : token.name,
          token.agent === null ? token.role : `${token.role}:${token.agent}`,
          token.scope ?? '-',
          token.createdAt,
          token.lastUsedAt ?? 'never',
          token.revokedAt !== null
            ? 'revoked'
            : token.expiresAt !== null && Date.parse(token.expiresAt) <= Date.now()
              ? 'expired'
              : 'active',
        ]),
      );
    }
    case 'rename': {
      if (id === undefined) throw new UsageError('give the id of the token to rename');
      none(1);
      if (name === undefined) throw new UsageError('--name is required');
      const renamed = await client.renameToken(id, name);
      return textTable(['ID', 'NAME'], [[renamed.id, renamed.name]]);
    }
    case 'revoke': {
      if (id === undefined) throw new UsageError('give the id of the token to revoke');
      none(1);
      await client.revokeToken(id);
      return '';
    }
    default:
      throw new UsageError(`unknown token action ${JSON.stringify(action ?? '')}`);
  }
}

/** `--label k=v` words as the token request's labels; a usage error for a malformed one. */
function labelsOf(given: TokenValues['label']): Record<string, string> | undefined {
  if (given === undefined) return undefined;
  const texts = Array.isArray(given) ? given : [given];
  const labels: Record<string, string> = {};
  for (const text of texts) {
    const label =
      typeof text === 'string' ? parseLabel(text) : { error: '--label needs KEY=VALUE' };
    if ('error' in label) throw new UsageError(label.error);
    labels[label.key] = label.value;
  }
  return labels;
}
