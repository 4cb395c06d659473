import { Readable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { EXPECTED_SIZE_HEADER } from '@svc/contracts';
import { replyWithInternalFile } from '../../../src/services/storage/file-response.js';
import type { OpenMount } from '../../../src/services/storage/mounts.service.js';
import type { MountPath } from '../../../src/services/storage/path-safety.js';
import type { StorageProvider } from '../../../src/services/storage/providers/index.js';

// A backend whose one-request read gives no modification time (no Last-Modified): the internal file
// route drops that body and answers the usual way (stat, then read). Dropping an HTTP body that was not
// read makes it emit an error, as undici's does: without a listener that would end the process.

const content = Buffer.from('0123456789abcdefghij');
const mtime = new Date('2026-11-01T10:00:00Z');

/** An unread response body: destroying it emits an error, as undici's BodyReadable does. */
function unreadBody(): Readable {
  return new Readable({
    read() {},
    destroy(_error, callback) {
      callback(new Error('Request aborted'));
    },
  });
}

function mountOf(provider: Partial<StorageProvider>): OpenMount {
  return { id: 'm1', name: 'far', kind: 'webdav', provider: provider as StorageProvider };
}

describe('internal file reads with the expected size, on a backend that gives no date', () => {
  it('answers through stat and read, and drops the first body without an uncaught error', async () => {
    const dropped: Readable[] = [];
    const mount = mountOf({
      async readKnownSize() {
        const body = unreadBody();
        dropped.push(body);
        return { body, mtime: null };
      },
      async stat() {
        return { name: 'film.bin', type: 'file', size: content.length, mtime };
      },
      async read(_path, options) {
        const range = options?.range ?? { start: 0, end: content.length - 1 };
        return Readable.from([content.subarray(range.start, range.end + 1)]);
      },
    });
    const app = Fastify();
    app.get('/file', (request, reply) =>
      replyWithInternalFile(request, reply, mount, 'film.bin' as MountPath),
    );
    try {
      const answer = await app.inject({
        url: '/file',
        headers: { range: 'bytes=2-5', [EXPECTED_SIZE_HEADER]: String(content.length) },
      });
      expect(answer.statusCode).toBe(206);
      expect(answer.body).toBe('2345');
      expect(answer.headers['content-range']).toBe(`bytes 2-5/${content.length}`);
      expect(dropped).toHaveLength(1);
      expect(dropped[0]!.destroyed).toBe(true);
    } finally {
      await app.close();
    }
  });
});
