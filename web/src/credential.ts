/**
 * This browser's jumpseat credential: traded for the login URL's token on the login page and
 * kept in `localStorage`, which only pages of this very origin (scheme, host and port) can
 * read and which no browser attaches to any request — unlike a cookie, which every port of
 * the host would receive. Sent as `Authorization`; WebSockets get a single-use ticket instead.
 */

const STORAGE_KEY = 'jumpseat.credential';

export function storedCredential(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null; // storage disabled: the person is simply not signed in
  }
}

export function keepCredential(credential: string): void {
  localStorage.setItem(STORAGE_KEY, credential);
}

export function forgetCredential(): void {
  try {
    localStorage.removeItem(STORAGE_KEY);
  } catch {
    // nothing kept, nothing to forget
  }
}

/** The header every API request of the page carries, when signed in. */
export function authorization(secret = storedCredential()): Record<string, string> {
  return secret === null ? {} : { authorization: `Bearer ${secret}` };
}
