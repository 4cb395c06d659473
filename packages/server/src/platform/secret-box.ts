import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Prefix of a sealed value: a stored string without it is plaintext written before sealing existed. */
const SEALED_PREFIX = 'enc:v1:';
const KEY_BYTES = 32;
const IV_BYTES = 12;

/**
 * Seals secrets stored in a database (drive tokens, WebDAV passwords) with AES-256-GCM under a key kept in
 * the data folder, beside the service token, so a database dump alone does not reveal them.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error('a secret key has 32 bytes');
  }

  /** The node's key from `<dataDir>/secrets/<name>`, created (0600) on first use. */
  static fromDataDir(dataDir: string, name = 'storage-secret-key'): SecretBox {
    const file = path.join(dataDir, 'secrets', name);
    if (existsSync(file)) {
      const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
      if (key.length === KEY_BYTES) return new SecretBox(key);
      throw new Error(`${file} does not hold a 32-byte key`);
    }
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const key = randomBytes(KEY_BYTES);
    try {
      writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process of this data folder made it first: use that one.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return SecretBox.fromDataDir(dataDir, name);
      throw error;
    }
    chmodSync(file, 0o600);
    return new SecretBox(key);
  }

  static isSealed(value: string): boolean {
    return value.startsWith(SEALED_PREFIX);
  }

  seal(plain: string): string {
    if (SecretBox.isSealed(plain)) return plain;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url'));
    return `${SEALED_PREFIX}${parts.join('.')}`;
  }

  /** The plaintext of a sealed value; a plaintext value (stored before sealing) is returned as it is. */
  open(stored: string): string {
    if (!SecretBox.isSealed(stored)) return stored;
    const [iv, tag, body] = stored.slice(SEALED_PREFIX.length).split('.');
    if (iv === undefined || tag === undefined || body === undefined)
      throw new Error('malformed sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}
