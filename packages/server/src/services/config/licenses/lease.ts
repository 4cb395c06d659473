import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomInt,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import { z } from 'zod';
import { editionSchema } from '@svc/contracts';

/**
 * Licence leases and one-time activation codes (docs/licences.md). Both are signed by the publisher with
 * Ed25519 and travel as text:
 *
 *   svc-lease.v1.<base64url(JSON payload)>.<base64url(signature)>
 *   svc-code.v1.<base64url(JSON { codeId, lease })>.<base64url(signature)>
 *
 * The signature covers the ASCII text before the last dot (prefix and encoded body), so a lease signature
 * can never be passed off as a code signature, and any change to the text breaks it. This module has no
 * database and no service code: the publisher tool (`svc license`) uses it as well.
 */

export const LEASE_PREFIX = 'svc-lease.v1';
export const CODE_PREFIX = 'svc-code.v1';
/** Longest lease or code text accepted (a real one is well under 1 KB). */
export const MAX_LEASE_TEXT = 8192;
/** How far a lease's validFrom may lie ahead of the service clock (publisher and install clocks differ). */
export const CLOCK_SKEW_MS = 5 * 60 * 1000;

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const B64URL = /^[A-Za-z0-9_-]+$/;

export const leaseKindSchema = z.enum(['lease', 'edition-upgrade']);
export type LeaseKind = z.infer<typeof leaseKindSchema>;

const instant = z.iso.datetime({ offset: true });
const quota = z.number().int().min(0).max(100_000);

export const leasePayloadSchema = z
  .object({
    licenseId: z.string().regex(ID_PATTERN),
    kind: leaseKindSchema,
    edition: editionSchema,
    maxStorageNodes: quota,
    maxPlayAgentNodes: quota,
    validFrom: instant,
    validUntil: instant,
    graceUntil: instant,
    issuedAt: instant,
    /** Binds the lease to one install (the installId of GET /api/license/status). */
    installId: z.string().regex(ID_PATTERN).optional(),
  })
  .refine(
    (lease) =>
      Date.parse(lease.validFrom) <= Date.parse(lease.validUntil) &&
      Date.parse(lease.validUntil) <= Date.parse(lease.graceUntil),
    { message: 'validFrom <= validUntil <= graceUntil must hold' },
  );
export type LeasePayload = z.infer<typeof leasePayloadSchema>;

const codeBodySchema = z.object({
  codeId: z.string().regex(ID_PATTERN),
  lease: z.string().max(MAX_LEASE_TEXT),
});

/** Why a text is not an acceptable lease or code (details.reason of 400 LICENSE_INVALID). */
export type LeaseProblem = 'format' | 'signature' | 'payload';

export class LeaseError extends Error {
  constructor(
    readonly reason: LeaseProblem,
    message: string,
  ) {
    super(message);
  }
}

function encodeSigned(prefix: string, body: unknown, privateKey: KeyObject): string {
  const signed = `${prefix}.${Buffer.from(JSON.stringify(body), 'utf8').toString('base64url')}`;
  const signature = sign(null, Buffer.from(signed, 'ascii'), privateKey);
  return `${signed}.${signature.toString('base64url')}`;
}

/** Strict base64url: the text must be exactly what encoding its bytes gives (no ignored bits or characters). */
function canonicalBase64url(text: string): Buffer | null {
  if (!B64URL.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}

/** Checks the signature of `<prefix>.<body>.<signature>` and answers the decoded JSON body. */
function decodeSigned(prefix: string, input: string, publicKey: KeyObject, what: string): unknown {
  const text = input.trim();
  if (text.length > MAX_LEASE_TEXT || !text.startsWith(`${prefix}.`)) {
    throw new LeaseError('format', `this is not a ${what} (it must start with ${prefix}.)`);
  }
  const parts = text.slice(prefix.length + 1).split('.');
  if (parts.length !== 2) throw new LeaseError('format', `the ${what} is damaged: wrong number of parts`);
  const [bodyText, signatureText] = parts as [string, string];
  const body = canonicalBase64url(bodyText);
  const signature = canonicalBase64url(signatureText);
  if (!body || !signature || signature.length !== 64) {
    throw new LeaseError('format', `the ${what} is damaged: it is not valid base64url`);
  }
  const signed = Buffer.from(`${prefix}.${bodyText}`, 'ascii');
  if (!verify(null, signed, publicKey, signature)) {
    throw new LeaseError(
      'signature',
      `the ${what}'s signature does not match the publisher key this install is configured with`,
    );
  }
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new LeaseError('payload', `the ${what} holds no JSON`);
  }
}

export function signLease(payload: LeasePayload, privateKey: KeyObject): string {
  return encodeSigned(LEASE_PREFIX, leasePayloadSchema.parse(payload), privateKey);
}

/** Verifies a lease and answers its payload; throws LeaseError for anything else. */
export function verifyLease(text: string, publicKey: KeyObject): LeasePayload {
  const parsed = leasePayloadSchema.safeParse(decodeSigned(LEASE_PREFIX, text, publicKey, 'licence lease'));
  if (!parsed.success) {
    throw new LeaseError(
      'payload',
      `the licence lease's payload is not valid: ${parsed.error.issues[0]?.message}`,
    );
  }
  return parsed.data;
}

/** A one-time activation code: the lease wrapped with a code id, signed again as a whole. */
export function signCode(codeId: string, lease: string, privateKey: KeyObject): string {
  return encodeSigned(CODE_PREFIX, codeBodySchema.parse({ codeId, lease }), privateKey);
}

export interface VerifiedCode {
  codeId: string;
  lease: string;
  payload: LeasePayload;
}

/** Verifies a code and the lease inside it (both signed by the same publisher key). */
export function verifyCode(text: string, publicKey: KeyObject): VerifiedCode {
  const body = codeBodySchema.safeParse(decodeSigned(CODE_PREFIX, text, publicKey, 'licence code'));
  if (!body.success) throw new LeaseError('payload', 'the licence code does not hold a code id and a lease');
  return {
    codeId: body.data.codeId,
    lease: body.data.lease,
    payload: verifyLease(body.data.lease, publicKey),
  };
}

/**
 * Reads a publisher public key: PEM (SPKI; `\n` written as two characters is accepted, as in an
 * environment file) or the base64 of the SPKI DER on one line. Throws an Error naming the problem.
 */
export function parsePublicKey(raw: string): KeyObject {
  const text = raw.trim().replace(/\\n/g, '\n');
  let key: KeyObject;
  try {
    if (text.includes('-----BEGIN')) key = createPublicKey(text);
    else {
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) throw new Error('not base64');
      key = createPublicKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'spki' });
    }
  } catch {
    throw new Error('is not a PEM public key or the base64 of an SPKI DER public key');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('must be an Ed25519 public key');
  return key;
}

/** Reads the publisher's private key (PKCS#8 PEM, as `svc license keygen` writes it). */
export function parsePrivateKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new Error('is not a PEM private key');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('must be an Ed25519 private key');
  return key;
}

/** The one-line form of a public key (base64 SPKI DER), as SVC_LICENSE_PUBLIC_KEY takes it. */
export function publicKeyLine(key: KeyObject): string {
  return key.export({ format: 'der', type: 'spki' }).toString('base64');
}

export interface PublisherKeyPair {
  privatePem: string;
  publicPem: string;
  publicKey: KeyObject;
  privateKey: KeyObject;
}

export function generatePublisherKeys(): PublisherKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    publicKey,
    privateKey,
    publicPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A new licence or code id: the prefix and 16 random lower-case letters and digits. */
export function newLicenseObjectId(prefix: 'lic' | 'code'): string {
  let suffix = '';
  for (let i = 0; i < 16; i++) suffix += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return `${prefix}-${suffix}`;
}

export type LeaseState = 'ACTIVE' | 'GRACE' | 'EXPIRED' | 'NOT_YET_VALID';

/**
 * Where a verified lease stands at `now`: ACTIVE in [validFrom, validUntil] (validFrom may be up to
 * CLOCK_SKEW_MS ahead), GRACE in (validUntil, graceUntil], EXPIRED after graceUntil.
 */
export function leaseState(payload: LeasePayload, now: number): LeaseState {
  if (now < Date.parse(payload.validFrom) - CLOCK_SKEW_MS) return 'NOT_YET_VALID';
  if (now <= Date.parse(payload.validUntil)) return 'ACTIVE';
  if (now <= Date.parse(payload.graceUntil)) return 'GRACE';
  return 'EXPIRED';
}
