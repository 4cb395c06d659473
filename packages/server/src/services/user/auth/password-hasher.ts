import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt cost parameters of new hashes (N = 2^15, r = 8, p = 1: about 32 MiB and tens of ms per hash). */
export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;

function derive(
  password: string,
  salt: Buffer,
  params: { N: number; r: number; p: number },
): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** Hashes and checks passwords: `scrypt$N$r$p$<salt base64url>$<hash base64url>`. */
export class PasswordHasher {
  private dummy: Promise<string> | undefined;

  constructor(private readonly params: { N: number; r: number; p: number } = SCRYPT_PARAMS) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const key = await derive(password, salt, this.params);
    const { N, r, p } = this.params;
    return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
  }

  /** Constant-time check; a malformed stored hash never matches. */
  async verify(password: string, encoded: string): Promise<boolean> {
    const parts = encoded.split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
    const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
    if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0) || N > 2 ** 20 || r > 64 || p > 16) {
      return false;
    }
    const salt = Buffer.from(parts[4] ?? '', 'base64url');
    const expected = Buffer.from(parts[5] ?? '', 'base64url');
    if (salt.length === 0 || expected.length !== KEY_BYTES) return false;
    const actual = await derive(password, salt, { N, r, p });
    return timingSafeEqual(actual, expected);
  }

  /**
   * Spends the same work as a real check against a hash of a random password, so that an unknown or
   * disabled account answers in about the same time as a wrong password.
   */
  async verifyDummy(password: string): Promise<false> {
    this.dummy ??= this.hash(randomBytes(16).toString('base64url'));
    await this.verify(password, await this.dummy);
    return false;
  }
}
