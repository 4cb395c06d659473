import { describe, expect, it } from 'vitest';
import { PasswordHasher, SCRYPT_PARAMS } from '../../../src/services/user/auth/password-hasher.js';

describe('password hashing', () => {
  it('uses scrypt N=2^15, r=8, p=1 with a 16-byte salt in the documented encoding', async () => {
    const hasher = new PasswordHasher();
    expect(SCRYPT_PARAMS).toEqual({ N: 32768, r: 8, p: 1 });
    const encoded = await hasher.hash('correct horse battery');
    const [scheme, n, r, p, salt, hash] = encoded.split('$');
    expect([scheme, n, r, p]).toEqual(['scrypt', '32768', '8', '1']);
    expect(Buffer.from(salt!, 'base64url')).toHaveLength(16);
    expect(Buffer.from(hash!, 'base64url')).toHaveLength(32);
    expect(await hasher.verify('correct horse battery', encoded)).toBe(true);
    expect(await hasher.verify('correct horse batterz', encoded)).toBe(false);
    // A fresh salt every time.
    expect(await hasher.hash('correct horse battery')).not.toBe(encoded);
  });

  it('never matches a malformed stored hash', async () => {
    const hasher = new PasswordHasher({ N: 1024, r: 8, p: 1 });
    for (const stored of [
      '',
      'plain',
      'scrypt$1024$8$1$$',
      'bcrypt$1$2$3$a$b',
      'scrypt$999999999$8$1$AAAA$AAAA',
    ]) {
      expect(await hasher.verify('x', stored)).toBe(false);
    }
    expect(await hasher.verifyDummy('anything')).toBe(false);
  });
});
