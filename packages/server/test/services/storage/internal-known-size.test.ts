import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EXPECTED_SIZE_HEADER } from '@svc/contracts';
import { SourceError } from '../../../src/services/play-agent/stream/sources.js';
import { mediaSource } from '../../vfs-e2e/play-source.js';
import { startVfsOrigin, type VfsOrigin } from '../../vfs-e2e/vfs-origin.js';

// A play-agent reading a file of a far-away WebDAV mount names the size the library holds; the storage
// node then asks the WebDAV server once (a GET) instead of a PROPFIND and then a GET: one round trip of
// the link less before the first byte of every open and every seek.

let origin: VfsOrigin;
const data = randomBytes(512 * 1024);

beforeAll(async () => {
  origin = await startVfsOrigin({ latencyMs: 0, bytesPerSecond: 0 });
});

afterAll(async () => {
  await origin?.stop();
});

beforeEach(() => {
  writeFileSync(path.join(origin.davDir, 'film.bin'), data);
  origin.proxy.log.length = 0;
});

const fileUrl = (file: string) =>
  `/api/storage/internal/mounts/${origin.mount.id}/file?path=${encodeURIComponent(file)}`;

function internalGet(file: string, headers: Record<string, string>) {
  return origin.storage.api('GET', fileUrl(file), { headers });
}

const methods = () => origin.proxy.log.map((entry) => entry.method);
const code = (response: { json<T>(): T }) => response.json<{ error: { code: string } }>().error.code;

describe('internal file reads with the expected size', () => {
  it('reads a range in one request to the WebDAV server, with the usual headers', async () => {
    const response = await internalGet('film.bin', {
      range: 'bytes=1000-1999',
      [EXPECTED_SIZE_HEADER]: String(data.length),
    });
    expect(response.status).toBe(206);
    expect(response.headers['content-range']).toBe(`bytes 1000-1999/${data.length}`);
    expect(response.headers['content-length']).toBe('1000');
    expect(response.headers.etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(response.headers['last-modified']).toBeTruthy();
    expect(response.body.equals(data.subarray(1000, 2000))).toBe(true);
    expect(methods()).toEqual(['GET']);
  });

  it('answers an open-ended range and the whole file the same way', async () => {
    const tail = await internalGet('film.bin', {
      range: `bytes=${data.length - 10}-`,
      [EXPECTED_SIZE_HEADER]: String(data.length),
    });
    expect(tail.status).toBe(206);
    expect(tail.body.equals(data.subarray(data.length - 10))).toBe(true);
    const whole = await internalGet('film.bin', { [EXPECTED_SIZE_HEADER]: String(data.length) });
    expect(whole.status).toBe(200);
    expect(whole.body.equals(data)).toBe(true);
    expect(methods()).toEqual(['GET', 'GET']);
  });

  it('gives the same ETag and Last-Modified as a read that stats first', async () => {
    const known = await internalGet('film.bin', {
      range: 'bytes=0-9',
      [EXPECTED_SIZE_HEADER]: String(data.length),
    });
    const stated = await internalGet('film.bin', { range: 'bytes=0-9' });
    expect(stated.status).toBe(206);
    expect(known.headers.etag).toBe(stated.headers.etag);
    expect(known.headers['last-modified']).toBe(stated.headers['last-modified']);
    // Without the header the node still asks for the file's facts first.
    expect(methods()).toEqual(['GET', 'PROPFIND', 'GET']);
  });

  it('refuses with 412 FILE_CHANGED when the file has another size, and sends none of its bytes', async () => {
    const response = await internalGet('film.bin', {
      range: 'bytes=0-99',
      [EXPECTED_SIZE_HEADER]: String(data.length + 1),
    });
    expect(response.status).toBe(412);
    expect(code(response)).toBe('FILE_CHANGED');
  });

  it('answers 404 for a missing file and the real 416 for a range past the expected size', async () => {
    const missing = await internalGet('gone.bin', {
      range: 'bytes=0-99',
      [EXPECTED_SIZE_HEADER]: '100',
    });
    expect(missing.status).toBe(404);
    expect(code(missing)).toBe('NOT_FOUND');
    const past = await internalGet('film.bin', {
      range: `bytes=${data.length + 5}-`,
      [EXPECTED_SIZE_HEADER]: String(data.length),
    });
    expect(past.status).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${data.length}`);
  });

  it('ignores a malformed expected size (the node stats first)', async () => {
    const response = await internalGet('film.bin', { range: 'bytes=0-9', [EXPECTED_SIZE_HEADER]: '-3' });
    expect(response.status).toBe(206);
    expect(methods()).toEqual(['PROPFIND', 'GET']);
  });
});

describe('the play-agent source of a file the library knows', () => {
  it('costs one request over the link per open, and says a resized file changed', async () => {
    const source = mediaSource(origin, null, 'film.bin', {}, { size: data.length, mtime: Date.now() });
    const controller = new AbortController();
    for (const range of [
      { start: 0, end: 65_535 },
      { start: 200_000, end: data.length - 1 },
    ]) {
      const body = await source.open(range, controller.signal);
      const chunks: Buffer[] = [];
      for (;;) {
        const chunk = await body.read();
        if (!chunk) break;
        chunks.push(Buffer.from(chunk));
        body.release(chunk);
      }
      await body.close();
      expect(Buffer.concat(chunks).equals(data.subarray(range.start, range.end + 1))).toBe(true);
    }
    expect(methods()).toEqual(['GET', 'GET']);

    writeFileSync(path.join(origin.davDir, 'film.bin'), data.subarray(0, 1000));
    const opened = source.open({ start: 0, end: 99 }, controller.signal);
    await expect(opened).rejects.toBeInstanceOf(SourceError);
    await expect(opened).rejects.toMatchObject({ reason: 'changed' });
    await source.close();
  });
});
