import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync, chmodSync } from 'node:fs';
import path from 'node:path';

/** Header that carries the service token on service-to-service calls. */
export const SERVICE_TOKEN_HEADER = 'x-svc-service-token';

/** Constant-time comparison of two secrets of any length (hashing first hides the length too). */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export function generateToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/**
 * The standalone install keeps its generated service token in the data folder so that
 * restarts and later starts reuse it; an explicit SVC_SERVICE_TOKEN always wins.
 */
export function resolveServiceToken(dataDir: string, explicit: string | undefined): string {
  if (explicit) return explicit;
  const file = path.join(dataDir, 'secrets', 'service-token');
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored.length >= 32) return stored;
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const token = generateToken('svc_st_');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}
