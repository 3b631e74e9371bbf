/**
 * The shape of the secrets jumpseat hands out: random, URL-safe, recognisable by a prefix
 * so secret scanners and people can tell a leaked jumpseat token at a glance.
 */
import { randomBytes } from 'node:crypto';

/** Every generated token starts with this (admin and minted alike). */
export const TOKEN_PREFIX = 'js_';

/** 256 bits of randomness: far beyond online guessing, and what SHA-256 hashes cleanly. */
const TOKEN_RANDOM_BYTES = 32;

/**
 * What may be a token at all: printable ASCII without spaces, so it travels unchanged in an
 * `Authorization` header, a cookie and a query string, and can be stored on one line.
 */
export const TOKEN_CHARACTERS = /^[\x21-\x7e]+$/;

/** A header or cookie longer than this cannot be one of ours; refused before hashing. */
export const MAX_TOKEN_LENGTH = 1024;

export function createTokenSecret(): string {
  return TOKEN_PREFIX + randomBytes(TOKEN_RANDOM_BYTES).toString('base64url');
}

export function isWellFormedToken(token: string): boolean {
  return token.length <= MAX_TOKEN_LENGTH && TOKEN_CHARACTERS.test(token);
}
