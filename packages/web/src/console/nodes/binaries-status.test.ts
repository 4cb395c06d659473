import { describe, expect, it } from 'vitest';
import { binaryStatusSchema, shortDigest, versionMismatch } from './binaries-status.js';

describe('binaries status', () => {
  it('reads the server answer and ignores extra fields', () => {
    const parsed = binaryStatusSchema.parse({
      provided: false,
      file: 'svc-node-linux-x64',
      platform: 'linux-x64',
      version: null,
      sizeBytes: null,
      sha256: null,
      modifiedAt: null,
      services: ['svc-control-storage', 'svc-play-agent'],
      controlVersion: '0.1.0',
      dockerImage: 'registry.example.com/svc-media:0.1.0',
      dockerImageFfmpeg: 'registry.example.com/svc-media:0.1.0',
      message: 'the config service provides no binary',
    });
    expect(parsed.provided).toBe(false);
    expect(parsed).not.toHaveProperty('message');
  });

  it('flags a binary whose version differs from the control plane', () => {
    expect(versionMismatch({ provided: true, version: '0.1.0', controlVersion: '0.1.0' })).toBe(false);
    expect(versionMismatch({ provided: true, version: '0.0.9', controlVersion: '0.1.0' })).toBe(true);
    expect(versionMismatch({ provided: true, version: null, controlVersion: '0.1.0' })).toBe(false);
    expect(versionMismatch({ provided: false, version: null, controlVersion: '0.1.0' })).toBe(false);
  });

  it('shortens a digest', () => {
    expect(shortDigest('0123456789abcdef'.repeat(4))).toBe('01234567…89abcdef');
    expect(shortDigest(null)).toBeNull();
    expect(shortDigest('abc')).toBe('abc');
  });
});
