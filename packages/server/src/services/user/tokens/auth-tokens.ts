import { createHash, randomBytes } from 'node:crypto';
import type { TokenKind } from '@svc/contracts';

/** Readable prefix of each token kind, followed by 32 random bytes in base64url (43 characters). */
export const TOKEN_PREFIX: Record<TokenKind, string> = {
  admin: 'svc_adm_',
  access: 'svc_acc_',
  playback: 'svc_ply_',
};

/**
 * Lifetimes: admin tokens 12 hours, access tokens 30 days (fixed, per the spec not configurable), playback
 * tokens 365 days (players keep the token they signed in with and have no way to renew it).
 */
export const TOKEN_LIFETIME_MS: Record<TokenKind, number> = {
  admin: 12 * 60 * 60 * 1000,
  access: 30 * 24 * 60 * 60 * 1000,
  playback: 365 * 24 * 60 * 60 * 1000,
};

export function newToken(kind: TokenKind): string {
  return `${TOKEN_PREFIX[kind]}${randomBytes(32).toString('base64url')}`;
}

/** What the database keeps of a token: its SHA-256 in lower-case hex. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
