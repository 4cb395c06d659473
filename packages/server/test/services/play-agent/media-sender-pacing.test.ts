import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMedia, type SendMediaResult } from '../../../src/services/play-agent/stream/media-sender.js';
import { openLocalFile } from '../../../src/services/play-agent/stream/sources.js';
import {
  TokenBucket,
  mbpsToBytes,
  systemClock,
  type BucketClock,
} from '../../../src/services/play-agent/stream/token-bucket.js';

/**
 * How the sender paces a limited answer (media-sender.ts, the write loop): one burst per write, and the
 * credit a late timer left in the bucket goes out in the same write instead of in writes of their own, so a
 * starved process spends fewer system calls exactly when CPU is short, and still keeps the rate.
 */

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const RATE = mbpsToBytes(20); // 2.5 MB/s, burst 50,000 B
const BYTES = 3_000_000;
const LATE_MS = 60;

/** The real clock, with every timer firing LATE_MS late, as on a starved machine. */
const lateClock: BucketClock = {
  now: () => systemClock.now(),
  setTimer: (callback, ms) => systemClock.setTimer(callback, ms + LATE_MS),
  clearTimer: (handle) => systemClock.clearTimer(handle),
};

describe('media sender pacing', () => {
  let dir = '';
  let data = Buffer.alloc(0);
  let server: Server;
  const writes: number[] = [];
  const reported: number[] = [];
  let result: Promise<SendMediaResult> | null = null;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-media-pacing-'));
    data = randomBytes(4 * 1024 * 1024);
    writeFileSync(path.join(dir, 'movie.mkv'), data);
    server = createServer((req, res) => {
      const write = res.write.bind(res) as (
        chunk: Buffer,
        callback: (error?: Error | null) => void,
      ) => boolean;
      // The sizes the sender hands to the response, write by write.
      res.write = ((chunk: Buffer, callback: (error?: Error | null) => void) => {
        writes.push(chunk.length);
        return write(chunk, callback);
      }) as typeof res.write;
      result = (async () => {
        const opened = await openLocalFile(path.join(dir, 'movie.mkv'), null);
        if (!opened.ok) throw new Error(opened.reason);
        return sendMedia(req, res, opened.source, {
          bucket: new TokenBucket(RATE, lateClock),
          onBytes: (delta) => reported.push(delta),
        });
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes a burst at a time and sends the credit of late timers with the next write, keeping the rate', async () => {
    const { port } = server.address() as AddressInfo;
    const answer = await request(`http://127.0.0.1:${port}/movie.mkv`, {
      headers: { range: `bytes=1000-${1000 + BYTES - 1}` },
    });
    const started = performance.now();
    const body = Buffer.from(await answer.body.arrayBuffer());
    const seconds = (performance.now() - started) / 1000;
    expect(answer.statusCode).toBe(206);
    expect(sha(body)).toBe(sha(data.subarray(1000, 1000 + BYTES)));
    expect(await result).toMatchObject({ bytesSent: BYTES, completed: true });
    expect(reported.reduce((sum, delta) => sum + delta, 0)).toBe(BYTES);

    const burst = 50_000;
    expect(writes.reduce((sum, size) => sum + size, 0)).toBe(BYTES);
    // The first write is one burst (the bucket starts full) and the few bytes of credit the time since
    // gave; a timer 60 ms late leaves about 60 ms of credit, which rides along with the next burst: about
    // 80 ms of the rate per write.
    expect(writes[0]).toBeGreaterThanOrEqual(burst);
    expect(writes[0]).toBeLessThan(burst * 1.5);
    const coalesced = writes.filter((size) => size > burst);
    expect(coalesced.length).toBeGreaterThan(writes.length / 2);
    expect(writes.length).toBeLessThan(BYTES / burst / 2);
    // Never more than the burst plus one second of catch-up credit in one write.
    expect(Math.max(...writes)).toBeLessThanOrEqual(burst + RATE);
    // The rate holds although every timer fired 60 ms late: 3 MB less the first burst at 2.5 MB/s is 1.18 s.
    const rate = (BYTES - burst) / seconds;
    expect(rate).toBeGreaterThan(RATE * 0.9);
    expect(rate).toBeLessThan(RATE * 1.1);
  });
});
