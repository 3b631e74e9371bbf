/**
 * What the auth side reports for the audit trail (the store keeps it): tokens minted and
 * revoked, a token first seen from an address, and refused requests.
 */

export type AuthEvent =
  | {
      readonly kind: 'minted';
      readonly tokenId: string;
      readonly name: string;
      readonly role: string;
      /** The one shell a share link reaches; null for an unscoped token. */
      readonly scope: string | null;
      /** The display name of whoever minted it. */
      readonly by: string;
    }
  | {
      readonly kind: 'revoked';
      readonly tokenId: string;
      readonly name: string;
      readonly by: string;
    }
  | {
      /** A share link's holder gave their display name. */
      readonly kind: 'named';
      readonly tokenId: string;
      readonly name: string;
    }
  | {
      readonly kind: 'new_address';
      readonly tokenId: string;
      readonly name: string;
      readonly address: string;
    }
  | {
      readonly kind: 'refused';
      /** 401 (no or bad token) or 403 (the token may not do this). */
      readonly status: 401 | 403;
      readonly reason: string;
      readonly address: string;
      readonly method: string;
      readonly url: string;
      /** The token, when it was valid but not allowed; null for a missing or bad token. */
      readonly tokenId: string | null;
      readonly name: string | null;
    };
