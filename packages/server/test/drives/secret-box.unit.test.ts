import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/platform/secret-box.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-secret-box-'));

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('SecretBox', () => {
  it('creates its key once (0600) and reads it back on the next start', () => {
    const first = SecretBox.fromDataDir(dataDir);
    const file = path.join(dataDir, 'secrets', 'storage-secret-key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const key = readFileSync(file, 'utf8');
    const sealed = first.seal('drive token');
    const again = SecretBox.fromDataDir(dataDir);
    expect(readFileSync(file, 'utf8')).toBe(key);
    expect(again.open(sealed)).toBe('drive token');
  });

  it('seals with a fresh nonce each time, never showing the plaintext, and leaves sealed values alone', () => {
    const box = SecretBox.fromDataDir(dataDir);
    const one = box.seal('s3cret-token');
    const two = box.seal('s3cret-token');
    expect(one).toMatch(/^enc:v1:/);
    expect(one).not.toBe(two);
    expect(one).not.toContain('s3cret');
    expect(box.seal(one)).toBe(one);
    expect(box.open('plain value from before sealing')).toBe('plain value from before sealing');
  });

  it('refuses a tampered value and another key', () => {
    const box = SecretBox.fromDataDir(dataDir);
    const sealed = box.seal('token');
    // The nonce is 12 bytes, 16 base64url characters without spare bits: any change alters it.
    const at = 'enc:v1:'.length;
    const tampered = `${sealed.slice(0, at)}${sealed[at] === 'A' ? 'B' : 'A'}${sealed.slice(at + 1)}`;
    expect(() => box.open(tampered)).toThrow();
    const other = new SecretBox(Buffer.alloc(32, 7));
    expect(() => other.open(sealed)).toThrow();
  });
});
