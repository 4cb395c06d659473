import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { sendMedia, type SendMediaResult } from '../../../src/services/play-agent/stream/media-sender.js';
import type { MediaBody, MediaSource } from '../../../src/services/play-agent/stream/sources.js';

/**
 * The sender reports a finished answer's bytes before it closes the source: a client may ask again the
 * moment its answer is complete, and a quota must already count those bytes (media-sender.ts, after
 * `await ended(res)`). The closes here wait for the test, so "before" does not depend on timing.
 */

const FILE_BYTES = 3 * 1024 * 1024 + 17;
const CHUNK_BYTES = 64 * 1024;

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

/** A close the test holds open: `started` gives the bytes reported when the sender began it, `release` ends it. */
interface HeldClose {
  started: Deferred<number>;
  release: Deferred<void>;
}

const heldClose = (): HeldClose => ({ started: deferred<number>(), release: deferred<void>() });

/** In-memory file bytes whose body and source closes each wait for the test. */
function heldSource(data: Buffer, reportedBytes: () => number) {
  const bodyClose = heldClose();
  const sourceClose = heldClose();
  const close = (held: HeldClose) => {
    held.started.resolve(reportedBytes());
    return held.release.promise;
  };
  const source: MediaSource = {
    kind: 'local',
    facts: async () => ({ size: data.length, mtime: null }),
    open: async (range) => {
      let offset = range.start;
      const body: MediaBody = {
        read: async () => {
          if (offset > range.end) return null;
          const chunk = data.subarray(offset, Math.min(offset + CHUNK_BYTES, range.end + 1));
          offset += chunk.length;
          return chunk;
        },
        release: () => undefined,
        close: () => close(bodyClose),
      };
      return body;
    },
    close: () => close(sourceClose),
  };
  return { source, bodyClose, sourceClose };
}

describe('media sender byte report', () => {
  let server: Server | null = null;

  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = null;
  });

  it('counts a finished answer before its source is closed', async () => {
    const data = Buffer.alloc(FILE_BYTES, 'media bytes ');
    let reported = 0;
    const { source, bodyClose, sourceClose } = heldSource(data, () => reported);
    const answer = deferred<SendMediaResult>();
    let answered = false;
    server = createServer((req, res) => {
      void sendMedia(req, res, source, {
        name: 'film.mkv',
        onBytes: (delta) => (reported += delta),
        // Neither the byte threshold nor the timer may report on their own: only the end of the answer does.
        reportBytes: Number.MAX_SAFE_INTEGER,
        reportMs: 3_600_000,
      }).then((result) => {
        answered = true;
        answer.resolve(result);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));

    const response = await request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/film.mkv`);
    const body = Buffer.from(await response.body.arrayBuffer());
    expect(response.statusCode).toBe(200);
    expect(body.equals(data)).toBe(true);

    // The body is closed first, then the source; every byte is reported before either close begins.
    expect(await bodyClose.started.promise).toBe(FILE_BYTES);
    expect(answered).toBe(false);
    bodyClose.release.resolve();
    expect(await sourceClose.started.promise).toBe(FILE_BYTES);
    expect(answered).toBe(false);
    sourceClose.release.resolve();

    expect(await answer.promise).toMatchObject({
      status: 200,
      bytesSent: FILE_BYTES,
      bytesPlanned: FILE_BYTES,
      completed: true,
    });
    // The final report after the closes adds nothing: the deltas add up to the bytes sent, once.
    expect(reported).toBe(FILE_BYTES);
  });
});
