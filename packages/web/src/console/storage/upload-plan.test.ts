import { describe, expect, it } from 'vitest';
import { UPLOAD_MAX_CHUNK_BYTES, UPLOAD_MIN_CHUNK_BYTES } from '@svc/contracts';
import {
  CONSOLE_BODY_LIMIT,
  DEFAULT_CHUNK_SIZE,
  HASH_LIMIT_BYTES,
  bytesReceived,
  chunkCount,
  chunkRange,
  clampChunkSize,
  missingChunks,
  shouldHash,
  toHex,
  uploadPercent,
} from './upload-plan.js';

const MiB = 1024 * 1024;

describe('upload planning', () => {
  it('keeps chunks within the node range and below the entrance limit', () => {
    expect(DEFAULT_CHUNK_SIZE).toBeLessThan(CONSOLE_BODY_LIMIT);
    expect(clampChunkSize(1)).toBe(UPLOAD_MIN_CHUNK_BYTES);
    expect(clampChunkSize(64 * MiB)).toBe(UPLOAD_MAX_CHUNK_BYTES);
    expect(clampChunkSize(Number.NaN)).toBe(DEFAULT_CHUNK_SIZE);
    expect(clampChunkSize(MiB + 0.5)).toBe(MiB);
  });

  it('covers the file with exact chunk ranges', () => {
    const size = 20 * MiB + 5;
    const chunk = 8 * MiB;
    expect(chunkCount(size, chunk)).toBe(3);
    expect(chunkRange(0, size, chunk)).toEqual({ index: 0, start: 0, end: 8 * MiB });
    expect(chunkRange(2, size, chunk)).toEqual({ index: 2, start: 16 * MiB, end: size });
    const all = missingChunks(size, chunk, []);
    expect(all.reduce((sum, range) => sum + range.end - range.start, 0)).toBe(size);
    expect(all.map((range) => range.index)).toEqual([0, 1, 2]);
  });

  it('plans no chunk for an empty file and one for a file of exactly one chunk', () => {
    expect(missingChunks(0, MiB, [])).toEqual([]);
    expect(missingChunks(MiB, MiB, [])).toEqual([{ index: 0, start: 0, end: MiB }]);
  });

  it('resumes with the chunks the node lacks', () => {
    expect(missingChunks(10, 3, [0, 2]).map((range) => range.index)).toEqual([1, 3]);
    expect(bytesReceived(10, 3, [0, 3, 3])).toBe(4);
  });

  it('computes a percentage', () => {
    expect(uploadPercent(0, 200)).toBe(0);
    expect(uploadPercent(50, 200)).toBe(25);
    expect(uploadPercent(300, 200)).toBe(100);
    expect(uploadPercent(0, 0)).toBe(100);
  });

  it('hashes only reasonably small files when Web Crypto is there', () => {
    expect(shouldHash(MiB, true)).toBe(true);
    expect(shouldHash(MiB, false)).toBe(false);
    expect(shouldHash(HASH_LIMIT_BYTES + 1, true)).toBe(false);
    expect(shouldHash(0, true)).toBe(false);
  });

  it('writes a digest as lower-case hex', () => {
    expect(toHex(new Uint8Array([0, 15, 255]).buffer)).toBe('000fff');
  });
});
