import { createHash, randomInt } from 'node:crypto';
import { generateToken } from '../../../platform/service-token.js';

/** Node token: install scripts and binary downloads of one worker node (`svc_nt_` + 43 characters). */
export const NODE_TOKEN_PREFIX = 'svc_nt_';
/** Registry token: the registration heartbeat of one worker node (`svc_rt_` + 43 characters). */
export const REGISTRY_TOKEN_PREFIX = 'svc_rt_';
/** Endpoint token: X-SVC-Endpoint-Token of one manual reverse-proxy address (`svc_ept_` + 43 characters). */
export const ENDPOINT_TOKEN_PREFIX = 'svc_ept_';

/** A new secret: the prefix and 32 random bytes in base64url. */
export function newNodeToken(prefix: string): string {
  return generateToken(prefix);
}

/** SHA-256 (hex) of a token: the lookup key of endpoint tokens, so the index never compares secrets. */
export function tokenSha256(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A node id generated when none is typed: 'node-' plus 12 random letters and digits. */
export function newNodeId(): string {
  let suffix = '';
  for (let i = 0; i < 12; i++) suffix += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return `node-${suffix}`;
}

/** A typed node id must look like this (the database checks it as well). */
export const NODE_ID_PATTERN = /^node-[A-Za-z0-9_-]{3,60}$/;
