import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowseResponse, Mount, ProbeResponse, Transfer, Upload } from '@svc/contracts';
import { installBackends } from '../../support/install-backends.js';
import { startRcloneWebdav, type RcloneWebdav } from './rclone-webdav.js';
import { q, sha256, startStorage, waitForTransfer, type StorageHarness } from './storage-harness.js';

const CHUNK = 256 * 1024;

describe.each(installBackends())('WebDAV mounts against rclone on $label', (backend) => {
  let storage: StorageHarness;
  let rclone: RcloneWebdav | undefined;
  let davDir: string;
  let dav: Mount;
  let local: Mount;
  let localRoot: string;

  beforeAll(async () => {
    storage = await startStorage(backend.env);
    davDir = storage.tempDir('svc-dav-');
    rclone = await startRcloneWebdav(davDir, { user: 'dav', pass: 'secret-pass' });
    const created = await storage.api('POST', '/api/storage/mounts', {
      body: {
        name: 'nas',
        provider: 'webdav',
        config: { url: rclone.url, username: 'dav', password: 'secret-pass', allowPrivateNetwork: true },
      },
    });
    expect(created.status, created.body.toString()).toBe(201);
    dav = created.json<Mount>();
    ({ mount: local, root: localRoot } = await storage.localMount('disk'));
  });

  afterAll(async () => {
    await rclone?.stop();
    await storage?.stop();
    await backend.cleanup();
  });

  const code = (response: { json<T>(): T }) => response.json<{ error: { code: string } }>().error.code;

  it('checks the connection, and reports wrong credentials', async () => {
    const ok = await storage.api('POST', `/api/storage/mounts/${dav.id}/check`);
    expect(ok.json()).toEqual({ ok: true });
    const wrong = await storage.api('PATCH', `/api/storage/mounts/${dav.id}`, {
      body: { config: { ...dav.config, password: 'wrong' } },
    });
    expect(wrong.status).toBe(200);
    const failed = await storage.api('POST', `/api/storage/mounts/${dav.id}/check`);
    expect(failed.json()).toMatchObject({ ok: false, error: { code: 'STORAGE_UNAVAILABLE' } });
    await storage.api('PATCH', `/api/storage/mounts/${dav.id}`, {
      body: { config: { ...dav.config, password: 'secret-pass' } },
    });
    expect((await storage.api('POST', `/api/storage/mounts/${dav.id}/check`)).json()).toEqual({ ok: true });
  });

  it('lists folders with names, sizes and types, without temp files', async () => {
    mkdirSync(path.join(davDir, 'Movies', 'Heat (1995)'), { recursive: true });
    writeFileSync(path.join(davDir, 'Movies', 'Heat (1995)', 'Heat (1995).mkv'), randomBytes(4096));
    writeFileSync(path.join(davDir, 'Movies', 'a & b <c>.txt'), 'xyz');
    writeFileSync(path.join(davDir, 'Movies', '.svc-tmp-partial'), 'partial');
    const response = await storage.api('GET', `/api/storage/mounts/${dav.id}/browse?path=Movies`);
    expect(response.status, response.body.toString()).toBe(200);
    const body = response.json<BrowseResponse>();
    expect(body.entries.map((e) => [e.name, e.type, e.size])).toEqual([
      ['Heat (1995)', 'dir', 0],
      ['a & b <c>.txt', 'file', 3],
    ]);
    const missing = await storage.api('GET', `/api/storage/mounts/${dav.id}/browse?path=Nothing`);
    expect(missing.status).toBe(404);
    const file = await storage.api(
      'GET',
      `/api/storage/mounts/${dav.id}/browse?path=${q('Movies/a & b <c>.txt')}`,
    );
    expect(code(file)).toBe('NOT_A_DIRECTORY');
  });

  it('reads with ranges', async () => {
    const data = randomBytes(300_000);
    writeFileSync(path.join(davDir, 'range.bin'), data);
    const url = `/api/storage/mounts/${dav.id}/download?path=range.bin`;
    const whole = await storage.api('GET', url);
    expect(whole.body.equals(data)).toBe(true);
    for (const [range, start, end] of [
      ['bytes=100-199', 100, 199],
      ['bytes=-1000', data.length - 1000, data.length - 1],
      ['bytes=299000-', 299_000, data.length - 1],
    ] as const) {
      const response = await storage.api('GET', url, { headers: { range } });
      expect(response.status).toBe(206);
      expect(response.headers['content-range']).toBe(`bytes ${start}-${end}/${data.length}`);
      expect(response.body.equals(data.subarray(start, end + 1))).toBe(true);
    }
    const internal = await storage.api('GET', `/api/storage/internal/mounts/${dav.id}/file?path=range.bin`, {
      headers: { range: 'bytes=5-9' },
    });
    expect(internal.body.equals(data.subarray(5, 10))).toBe(true);
  });

  it('uploads in chunks through the node and places the file atomically', async () => {
    const data = randomBytes(CHUNK * 2 + 77);
    const begin = await storage.api('POST', `/api/storage/mounts/${dav.id}/uploads`, {
      body: { path: 'Movies/uploaded.bin', size: data.length, sha256: sha256(data), chunkSize: CHUNK },
    });
    expect(begin.status, begin.body.toString()).toBe(201);
    const upload = begin.json<Upload>();
    for (const index of [2, 0, 1]) {
      const response = await storage.api(
        'PUT',
        `/api/storage/mounts/${dav.id}/uploads/${upload.id}/chunks/${index}`,
        {
          raw: data.subarray(index * CHUNK, (index + 1) * CHUNK),
          headers: { 'content-type': 'application/octet-stream' },
        },
      );
      expect(response.status).toBe(200);
    }
    expect(existsSync(path.join(davDir, 'Movies', 'uploaded.bin'))).toBe(false);
    const done = await storage.api('POST', `/api/storage/mounts/${dav.id}/uploads/${upload.id}/complete`);
    expect(done.status, done.body.toString()).toBe(200);
    expect(readFileSync(path.join(davDir, 'Movies', 'uploaded.bin')).equals(data)).toBe(true);
    expect(
      readdirSync(path.join(davDir, 'Movies')).filter(
        (n) => n.startsWith('.svc-tmp-') && n !== '.svc-tmp-partial',
      ),
    ).toEqual([]);
    // The staging file in the data folder is gone too.
    const staging = path.join(storage.install.dataDir, 'storage', 'uploads');
    expect(existsSync(staging) ? readdirSync(staging) : []).toEqual([]);
  });

  it('resumes an upload whose row names the staging folder of a data folder that has moved; the cleanup keeps its bytes', async () => {
    const data = randomBytes(CHUNK * 2 + 99);
    const begin = await storage.api('POST', `/api/storage/mounts/${dav.id}/uploads`, {
      body: { path: 'resumed-after-move.bin', size: data.length, sha256: sha256(data), chunkSize: CHUNK },
    });
    expect(begin.status, begin.body.toString()).toBe(201);
    const upload = begin.json<Upload>();
    const sendChunk = (index: number) =>
      storage.api('PUT', `/api/storage/mounts/${dav.id}/uploads/${upload.id}/chunks/${index}`, {
        raw: data.subarray(index * CHUNK, (index + 1) * CHUNK),
        headers: { 'content-type': 'application/octet-stream' },
      });
    expect((await sendChunk(0)).status).toBe(200);
    // The row as a storage node whose data folder was elsewhere (a legacy container's /data) recorded it.
    const name = `.svc-tmp-${upload.id}`;
    const spool = path.join(storage.install.dataDir, 'storage', 'uploads', name);
    expect(existsSync(spool)).toBe(true);
    await storage.component.services.uploads['repository'].update(upload.id, {
      staging: `local:/data/storage/uploads/${name}`,
    });
    // A day-old spool file of an upload still open is not a leftover.
    const old = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    utimesSync(spool, old, old);
    await storage.component.services.cleanup.run();
    expect(existsSync(spool)).toBe(true);
    for (const index of [1, 2]) expect((await sendChunk(index)).status).toBe(200);
    const done = await storage.api('POST', `/api/storage/mounts/${dav.id}/uploads/${upload.id}/complete`);
    expect(done.status, done.body.toString()).toBe(200);
    expect(readFileSync(path.join(davDir, 'resumed-after-move.bin')).equals(data)).toBe(true);
    expect(existsSync(spool)).toBe(false);
  });

  it('copies local → WebDAV and WebDAV → local as transfers', async () => {
    const data = randomBytes(2 * 1024 * 1024 + 5);
    mkdirSync(path.join(localRoot, 'Shows', 'Season 1'), { recursive: true });
    writeFileSync(path.join(localRoot, 'Shows', 'Season 1', 'E01.mkv'), data);
    writeFileSync(path.join(localRoot, 'Shows', 'poster.jpg'), 'jpg');

    const toDav = await storage.api('POST', `/api/storage/mounts/${local.id}/copy`, {
      body: { path: 'Shows', targetMountId: dav.id, targetPath: 'Shows' },
    });
    expect(toDav.status, toDav.body.toString()).toBe(202);
    const first = await waitForTransfer(storage, toDav.json<Transfer>().id);
    expect(first, JSON.stringify(first)).toMatchObject({
      state: 'succeeded',
      files: { done: 2, total: 2 },
      bytes: { done: data.length + 3, total: data.length + 3 },
    });
    expect(readFileSync(path.join(davDir, 'Shows', 'Season 1', 'E01.mkv')).equals(data)).toBe(true);
    expect(readFileSync(path.join(davDir, 'Shows', 'poster.jpg'), 'utf8')).toBe('jpg');

    const back = await storage.api('POST', `/api/storage/mounts/${dav.id}/copy`, {
      body: { path: 'Shows/Season 1/E01.mkv', targetMountId: local.id, targetPath: 'E01 copy.mkv' },
    });
    expect(back.status).toBe(202);
    expect((await waitForTransfer(storage, back.json<Transfer>().id)).state).toBe('succeeded');
    expect(readFileSync(path.join(localRoot, 'E01 copy.mkv')).equals(data)).toBe(true);
    // The sources are untouched by copies.
    expect(readFileSync(path.join(localRoot, 'Shows', 'Season 1', 'E01.mkv')).equals(data)).toBe(true);
  });

  it('copies and moves inside the WebDAV mount server-side, and moves WebDAV → local', async () => {
    writeFileSync(path.join(davDir, 'inside.bin'), 'inside');
    const copy = await storage.api('POST', `/api/storage/mounts/${dav.id}/copy`, {
      body: { path: 'inside.bin', targetPath: 'Movies/inside copy.bin' },
    });
    expect((await waitForTransfer(storage, copy.json<Transfer>().id)).state).toBe('succeeded');
    expect(readFileSync(path.join(davDir, 'Movies', 'inside copy.bin'), 'utf8')).toBe('inside');

    const move = await storage.api('POST', `/api/storage/mounts/${dav.id}/move`, {
      body: { path: 'Movies/inside copy.bin', targetPath: 'moved.bin' },
    });
    expect((await waitForTransfer(storage, move.json<Transfer>().id)).state).toBe('succeeded');
    expect(existsSync(path.join(davDir, 'Movies', 'inside copy.bin'))).toBe(false);
    expect(readFileSync(path.join(davDir, 'moved.bin'), 'utf8')).toBe('inside');

    const across = await storage.api('POST', `/api/storage/mounts/${dav.id}/move`, {
      body: { path: 'moved.bin', targetMountId: local.id, targetPath: 'moved-here.bin' },
    });
    expect((await waitForTransfer(storage, across.json<Transfer>().id)).state).toBe('succeeded');
    expect(existsSync(path.join(davDir, 'moved.bin'))).toBe(false);
    expect(readFileSync(path.join(localRoot, 'moved-here.bin'), 'utf8')).toBe('inside');

    const clash = await storage.api('POST', `/api/storage/mounts/${dav.id}/copy`, {
      body: { path: 'inside.bin', targetPath: 'range.bin' },
    });
    expect(clash.status).toBe(409);
  });

  it('makes folders, renames and deletes', async () => {
    const post = (op: string, body: unknown) =>
      storage.api('POST', `/api/storage/mounts/${dav.id}/${op}`, { body });
    expect((await post('mkdir', { path: 'New/Deep', parents: true })).status).toBe(201);
    expect(code(await post('mkdir', { path: 'New' }))).toBe('ALREADY_EXISTS');
    expect((await post('mkdir', { path: 'Nope/Deep' })).status).toBe(404);
    writeFileSync(path.join(davDir, 'New', 'x.txt'), 'x');
    expect((await post('rename', { path: 'New/x.txt', newName: 'y.txt' })).status).toBe(200);
    expect(readFileSync(path.join(davDir, 'New', 'y.txt'), 'utf8')).toBe('x');
    expect(code(await post('delete', { path: 'New' }))).toBe('DIRECTORY_NOT_EMPTY');
    expect((await post('delete', { path: 'New', recursive: true })).status).toBe(204);
    expect(existsSync(path.join(davDir, 'New'))).toBe(false);
  });

  it('walks the mount for the media service', async () => {
    const response = await storage.api('GET', `/api/storage/internal/mounts/${dav.id}/walk?path=Movies`);
    expect(response.headers['content-type']).toContain('application/x-ndjson');
    const lines = response.body
      .toString()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { path: string; type: string });
    expect(lines.map((line) => line.path)).toEqual([
      'Movies/a & b <c>.txt',
      'Movies/Heat (1995)',
      'Movies/uploaded.bin',
      'Movies/Heat (1995)/Heat (1995).mkv',
    ]);
  });

  it('probes a WebDAV file through the loopback source', async () => {
    const made = spawnSync('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=1:size=160x120:rate=10',
      '-y',
      path.join(davDir, 'clip.mkv'),
    ]);
    expect(made.status).toBe(0);
    const response = await storage.api('POST', `/api/storage/internal/mounts/${dav.id}/probe`, {
      body: { path: 'clip.mkv' },
    });
    expect(response.status, response.body.toString()).toBe(200);
    const body = response.json<ProbeResponse>();
    expect(body.available).toBe(true);
    expect(body.result?.container).toContain('matroska');
    expect(body.result?.streams[0]).toMatchObject({ type: 'video', width: 160, height: 120 });
  });
});
