/**
 * The Tokens page's list without the DOM: what each token reaches in words, its status, and
 * the list searched, narrowed to a status and sorted by a column.
 */
import type { TokenInfo } from '../../shared/src/api.ts';

export type TokenStatus = 'active' | 'revoked' | 'expired';
export const TOKEN_SORTS = ['name', 'role', 'reaches', 'created', 'used', 'status'] as const;
export type TokenSort = (typeof TOKEN_SORTS)[number];
export const STATUS_FILTERS = ['all', 'active', 'revoked', 'expired'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

export interface TokenView {
  readonly search: string;
  readonly status: StatusFilter;
  readonly sort: TokenSort;
  readonly direction: 'ascending' | 'descending';
}

export const DEFAULT_TOKEN_VIEW: TokenView = {
  search: '',
  status: 'all',
  sort: 'created',
  direction: 'descending',
};

export function statusOf(token: TokenInfo, now = Date.now()): TokenStatus {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && Date.parse(token.expiresAt) <= now) return 'expired';
  return 'active';
}

/** What a token's holder may reach, in a person's words. */
export function reachesOf(token: TokenInfo): string {
  if (token.scope !== null) {
    const may = token.role === 'operator' ? 'watch and type in' : 'watch';
    return `${may} one shell (${token.scope})`;
  }
  switch (token.role) {
    case 'admin':
      return 'everything: every shell, tokens, history';
    case 'operator':
      return 'every shell: watch, take over, open shells';
    case 'viewer':
      return 'every shell: watch only';
    case 'agent': {
      const labels = Object.entries(token.labels ?? {}).map(([key, value]) => `${key}=${value}`);
      const where = labels.length === 0 ? '' : `, on hosts with ${labels.join(' ')}`;
      return `tool calls in agent ${token.agent ?? '?'}’s shells${where}`;
    }
    case 'host':
      return 'joins as a shell host, nothing else';
    default:
      return token.role;
  }
}

function sortValue(token: TokenInfo, sort: TokenSort): string {
  switch (sort) {
    case 'name':
      return token.name.toLowerCase();
    case 'role':
      return `${token.role} ${token.agent ?? ''}`;
    case 'reaches':
      return reachesOf(token);
    case 'created':
      return token.createdAt;
    case 'used':
      // Never used sorts before any use.
      return token.lastUsedAt ?? '';
    case 'status':
      return statusOf(token);
  }
}

/** The tokens `view` shows, in its order. */
export function arrangeTokens(tokens: readonly TokenInfo[], view: TokenView): TokenInfo[] {
  const words = view.search.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const shown = tokens.filter((token) => {
    if (view.status !== 'all' && statusOf(token) !== view.status) return false;
    const text = [
      token.name,
      token.role,
      token.agent ?? '',
      reachesOf(token),
      statusOf(token),
      token.link ? 'link' : 'token',
      token.createdBy ?? '',
    ]
      .join(' ')
      .toLowerCase();
    return words.every((word) => text.includes(word));
  });
  const sign = view.direction === 'ascending' ? 1 : -1;
  return shown.sort(
    (a, b) =>
      sign * sortValue(a, view.sort).localeCompare(sortValue(b, view.sort)) ||
      a.name.localeCompare(b.name),
  );
}
