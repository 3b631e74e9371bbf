/**
 * What a token may be minted or renamed with: a role with its agent and labels, a person's
 * name (honest, and no look-alike of another working token's, so nobody passes for someone
 * else) and a host's (shaped like an agent id, bound to one working token). Each check
 * answers 400 saying what is wrong.
 */
import type { TokenRequest } from '../../../shared/src/api.ts';
import { labelsProblem } from '../../../shared/src/labels.ts';
import { lookAlikeOf } from '../../../shared/src/name-skeleton.ts';
import { checkDisplayName } from '../../../shared/src/names.ts';
import { HOST_NAME_REGEX } from '../../../shared/src/vocabulary.ts';
import { JUMPSEAT_ERR_BAD_REQUEST, JumpseatError } from '../errors.ts';
import type { TokenRecord } from './token-file.ts';
import { ADMIN_PRINCIPAL, endedAt } from './token-record.ts';

/**
 * A name given to a person (by the admin, or by a link holder): see names.ts and
 * name-skeleton.ts. `tokenId` is the token being renamed (its own name is no rival).
 */
export function personName(raw: string, records: readonly TokenRecord[], tokenId?: string): string {
  const name = displayName(raw);
  const now = Date.now();
  const others = records
    .filter((r) => r.id !== tokenId && r.named !== false && endedAt(r) > now)
    .map((r) => r.name);
  const like = lookAlikeOf(name, [ADMIN_PRINCIPAL.name, ...others]);
  if (like !== undefined) {
    throw new JumpseatError(
      JUMPSEAT_ERR_BAD_REQUEST,
      `a name may not look like another person's name (${JSON.stringify(like)})`,
    );
  }
  return name;
}

/**
 * A host's name: required, shaped like an agent id, and not the name of another working
 * host token (a host's name is bound to its token).
 */
export function hostName(raw: string | undefined, records: readonly TokenRecord[]): string {
  if (raw === undefined) {
    throw new JumpseatError(
      JUMPSEAT_ERR_BAD_REQUEST,
      'role "host" requires "name" (the host\'s name)',
    );
  }
  if (!HOST_NAME_REGEX.test(raw)) {
    throw new JumpseatError(
      JUMPSEAT_ERR_BAD_REQUEST,
      `host name ${JSON.stringify(raw)} must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  const now = Date.now();
  if (records.some((r) => r.role === 'host' && r.name === raw && endedAt(r) > now)) {
    throw new JumpseatError(
      JUMPSEAT_ERR_BAD_REQUEST,
      `a working host token named ${JSON.stringify(raw)} exists; revoke it first or choose another name`,
    );
  }
  return raw;
}

/** A display name as kept, or 400 saying what is wrong with it (see shared/src/names.ts). */
function displayName(raw: string): string {
  const checked = checkDisplayName(raw);
  if ('error' in checked) throw new JumpseatError(JUMPSEAT_ERR_BAD_REQUEST, checked.error);
  return checked.name;
}

/** 400 for a request whose role and agent or labels do not go together. */
export function checkRequest(request: TokenRequest): void {
  if (request.role === 'agent' && request.agent === undefined) {
    throw new JumpseatError(
      JUMPSEAT_ERR_BAD_REQUEST,
      'role "agent" requires "agent" (the agent id)',
    );
  }
  if (request.role !== 'agent' && request.agent !== undefined) {
    throw new JumpseatError(
      JUMPSEAT_ERR_BAD_REQUEST,
      `"agent" is only allowed with role "agent", not "${request.role}"`,
    );
  }
  if (request.labels !== undefined) {
    if (request.role !== 'agent') {
      throw new JumpseatError(
        JUMPSEAT_ERR_BAD_REQUEST,
        `"labels" is only allowed with role "agent", not "${request.role}"`,
      );
    }
    const problem = labelsProblem(request.labels);
    if (problem !== undefined) throw new JumpseatError(JUMPSEAT_ERR_BAD_REQUEST, problem);
  }
}
