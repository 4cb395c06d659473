import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mount, StorageEntry, Upload } from '@svc/contracts';
import { installBackends } from '../../support/install-backends.js';
import { sha256, startStorage, type StorageHarness } from './storage-harness.js';

const CHUNK = 256 * 1024;

describe.each(installBackends())('chunked uploads on $label', (backend) => {
  let storage: StorageHarness;
  let mount: Mount;
  let root: string;

  beforeAll(async () => {
    storage = await startStorage(backend.env);
    ({ mount, root } = await storage.localMount('uploads'));
  });

  afterAll(async () => {
    await storage?.stop();
    await backend.cleanup();
  });

  const base = () => `/api/storage/mounts/${mount.id}/uploads`;
  const begin = async (body: Record<string, unknown>) => {
    const response = await storage.api('POST', base(), { body: { chunkSize: CHUNK, ...body } });
    expect(response.status, response.body.toString()).toBe(201);
    return response.json<Upload>();
  };
  const put = (upload: Upload, index: number, bytes: Buffer) =>
    storage.api('PUT', `${base()}/${upload.id}/chunks/${index}`, {
      raw: bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
  const chunkOf = (data: Buffer, index: number) => data.subarray(index * CHUNK, (index + 1) * CHUNK);
  const complete = (upload: Upload) => storage.api('POST', `${base()}/${upload.id}/complete`);
  const code = (response: { json<T>(): T }) => response.json<{ error: { code: string } }>().error.code;
  const tempFiles = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('.svc-tmp-'));

  it('assembles chunks sent in order, checks the SHA-256 and lets the file appear at once', async () => {
    const data = randomBytes(CHUNK * 3 + 1234);
    const upload = await begin({ path: 'in-order.bin', size: data.length, sha256: sha256(data) });
    expect(upload).toMatchObject({ chunkCount: 4, received: [], state: 'open' });
    for (let index = 0; index < 4; index++) {
      const response = await put(upload, index, chunkOf(data, index));
      expect(response.status, response.body.toString()).toBe(200);
      expect(response.json()).toEqual({ index, received: index + 1 });
      // Nothing under the final name until completion.
      expect(existsSync(path.join(root, 'in-order.bin'))).toBe(false);
    }
    const listing = await storage.api('GET', `/api/storage/mounts/${mount.id}/browse`);
    expect(listing.body.toString()).not.toContain('.svc-tmp-');
    const done = await complete(upload);
    expect(done.status, done.body.toString()).toBe(200);
    expect(done.json<{ entry: StorageEntry }>().entry).toMatchObject({
      path: 'in-order.bin',
      size: data.length,
    });
    expect(readFileSync(path.join(root, 'in-order.bin')).equals(data)).toBe(true);
    expect(tempFiles(root)).not.toContain(`.svc-tmp-${upload.id}`);
    // Completing again is harmless.
    expect((await complete(upload)).status).toBe(200);
  });

  it('accepts chunks out of order and resumes after a missing one', async () => {
    const data = randomBytes(CHUNK * 5);
    const upload = await begin({ path: 'out-of-order.bin', size: data.length, sha256: sha256(data) });
    for (const index of [4, 1, 3, 0])
      expect((await put(upload, index, chunkOf(data, index))).status).toBe(200);
    const early = await complete(upload);
    expect(early.status).toBe(409);
    expect(early.json()).toMatchObject({ error: { code: 'UPLOAD_INCOMPLETE', details: { missing: [2] } } });
    // The client asks what arrived and sends the rest, e.g. after a broken connection.
    const state = await storage.api('GET', `${base()}/${upload.id}`);
    expect(state.json<Upload>().received).toEqual([0, 1, 3, 4]);
    expect((await put(upload, 2, chunkOf(data, 2))).status).toBe(200);
    // A chunk sent twice is simply stored again.
    expect((await put(upload, 3, chunkOf(data, 3))).status).toBe(200);
    expect((await complete(upload)).status).toBe(200);
    expect(readFileSync(path.join(root, 'out-of-order.bin')).equals(data)).toBe(true);
  });

  it('refuses chunks of the wrong length or beyond the end', async () => {
    const data = randomBytes(CHUNK + 100);
    const upload = await begin({ path: 'sizes.bin', size: data.length });
    const short = await put(upload, 0, data.subarray(0, CHUNK - 1));
    expect(short.status).toBe(400);
    expect(code(short)).toBe('INVALID_CHUNK');
    const long = await put(upload, 1, data.subarray(0, 101));
    expect(long.status).toBe(400);
    const beyond = await put(upload, 2, data.subarray(0, 10));
    expect(beyond.status).toBe(400);
    expect(code(beyond)).toBe('INVALID_CHUNK');
    const state = await storage.api('GET', `${base()}/${upload.id}`);
    expect(state.json<Upload>().received).toEqual([]);
    const tooBig = await storage.api('POST', base(), {
      body: { path: 'x.bin', size: 10, chunkSize: 8 * 1024 * 1024 + 1 },
    });
    expect(tooBig.status).toBe(400);
    const wrongType = await storage.api('PUT', `${base()}/${upload.id}/chunks/0`, {
      raw: 'text',
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.status).toBe(415);
  });

  it('refuses a file whose SHA-256 does not match, keeping the upload open', async () => {
    const data = randomBytes(1000);
    const upload = await begin({ path: 'bad-hash.bin', size: data.length, sha256: 'a'.repeat(64) });
    expect((await put(upload, 0, data)).status).toBe(200);
    const response = await complete(upload);
    expect(response.status).toBe(422);
    expect(code(response)).toBe('CHECKSUM_MISMATCH');
    expect(existsSync(path.join(root, 'bad-hash.bin'))).toBe(false);
    expect(tempFiles(root)).toContain(`.svc-tmp-${upload.id}`);
    expect((await storage.api('DELETE', `${base()}/${upload.id}`)).status).toBe(204);
    expect(tempFiles(root)).not.toContain(`.svc-tmp-${upload.id}`);
  });

  it('never replaces an existing file unless asked, and then atomically', async () => {
    writeFileSync(path.join(root, 'existing.txt'), 'original');
    const refused = await storage.api('POST', base(), { body: { path: 'existing.txt', size: 3 } });
    expect(refused.status).toBe(409);
    const upload = await begin({ path: 'existing.txt', size: 7, overwrite: true });
    expect((await put(upload, 0, Buffer.from('updated'))).status).toBe(200);
    expect(readFileSync(path.join(root, 'existing.txt'), 'utf8')).toBe('original');
    expect((await complete(upload)).status).toBe(200);
    expect(readFileSync(path.join(root, 'existing.txt'), 'utf8')).toBe('updated');

    // A file that appears meanwhile under the name wins over an upload without overwrite.
    const racing = await begin({ path: 'late.txt', size: 3 });
    expect((await put(racing, 0, Buffer.from('new'))).status).toBe(200);
    writeFileSync(path.join(root, 'late.txt'), 'first');
    const clash = await complete(racing);
    expect(clash.status).toBe(409);
    expect(readFileSync(path.join(root, 'late.txt'), 'utf8')).toBe('first');
  });

  it('uploads empty files', async () => {
    const upload = await begin({ path: 'empty.txt', size: 0 });
    expect(upload.chunkCount).toBe(0);
    expect((await complete(upload)).status).toBe(200);
    expect(readFileSync(path.join(root, 'empty.txt')).length).toBe(0);
  });

  it('expires idle uploads and removes stale temp files with the cleanup task', async () => {
    const upload = await begin({ path: 'abandoned.bin', size: 10 });
    const { services } = storage.component;
    expect(tempFiles(root).length).toBeGreaterThan(0);
    // Fresh temp files of live uploads survive a run.
    await services.cleanup.run();
    expect(tempFiles(root)).toContain(`.svc-tmp-${upload.id}`);
    writeFileSync(path.join(root, '.svc-tmp-stale'), 'x');
    const old = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    const { utimesSync } = await import('node:fs');
    utimesSync(path.join(root, '.svc-tmp-stale'), old, old);
    const result = await services.cleanup.run();
    expect(result.removed).toBe(1);
    expect(tempFiles(root)).not.toContain('.svc-tmp-stale');
    expect(tempFiles(root)).toContain(`.svc-tmp-${upload.id}`);
    // An upload idle for a day expires and its bytes go.
    await storage.component.services.uploads['repository'].update(upload.id, { expires_at: old });
    expect((await services.cleanup.run()).expiredUploads).toBe(1);
    expect(tempFiles(root)).not.toContain(`.svc-tmp-${upload.id}`);
    const state = await storage.api('GET', `${base()}/${upload.id}`);
    expect(state.json<Upload>().state).toBe('aborted');
    const task = await storage.install.context.schedulers.get('storage')?.runNow('storage.temp-cleanup');
    expect(task).toBe('ran');
  });
});
