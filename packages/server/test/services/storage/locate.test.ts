import { mkdirSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { locateResponseSchema, type LocateResponse, type Mount } from '@svc/contracts';
import { openLocalFile } from '../../../src/services/play-agent/stream/sources.js';
import { installBackends } from '../../support/install-backends.js';
import { startRcloneWebdav, type RcloneWebdav } from './rclone-webdav.js';
import { q, snapshot, startStorage, type StorageHarness } from './storage-harness.js';

describe.each(installBackends())('storage locate route for co-located play-agents on $label', (backend) => {
  let storage: StorageHarness;
  let mount: Mount;
  let root: string;
  let outside: string;
  let dav: Mount;
  let davDir: string;
  let rclone: RcloneWebdav | undefined;

  beforeAll(async () => {
    storage = await startStorage(backend.env);
    ({ mount, root } = await storage.localMount('library'));
    outside = storage.tempDir('svc-outside-');
    writeFileSync(path.join(outside, 'secret.mkv'), 'secret');
    mkdirSync(path.join(root, 'Movies', 'Heat (1995)'), { recursive: true });
    writeFileSync(path.join(root, 'Movies', 'Heat (1995)', 'Heat (1995).mkv'), 'h'.repeat(1234));
    writeFileSync(path.join(root, 'Movies', 'a%20b.mkv'), 'literal percent');
    // A link that stays inside the mount is followed to its real file; one leading out is refused.
    symlinkSync(path.join(root, 'Movies', 'Heat (1995)'), path.join(root, 'Favourites'));
    symlinkSync(path.join(outside, 'secret.mkv'), path.join(root, 'Movies', 'escape.mkv'));
    symlinkSync(outside, path.join(root, 'Outside'));
    symlinkSync(path.join(root, 'nowhere.mkv'), path.join(root, 'Movies', 'dangling.mkv'));

    davDir = storage.tempDir('svc-dav-');
    writeFileSync(path.join(davDir, 'remote.mkv'), 'r'.repeat(77));
    rclone = await startRcloneWebdav(davDir);
    const created = await storage.api('POST', '/api/storage/mounts', {
      body: { name: 'nas', provider: 'webdav', config: { url: rclone.url, allowPrivateNetwork: true } },
    });
    expect(created.status, created.body.toString()).toBe(201);
    dav = created.json<Mount>();
  });

  afterAll(async () => {
    await rclone?.stop();
    await storage?.stop();
    await backend.cleanup();
  });

  const locate = (mountId: string, rawPath: string | null) =>
    storage.api(
      'GET',
      `/api/storage/internal/mounts/${mountId}/locate${rawPath === null ? '' : `?path=${q(rawPath)}`}`,
      { identity: null },
    );
  const code = (response: { json<T>(): T }) => response.json<{ error: { code: string } }>().error.code;

  it('is for services only', async () => {
    const anonymous = await request(`${storage.base}/api/storage/internal/mounts/${mount.id}/locate?path=x`);
    expect(anonymous.statusCode).toBe(401);
    await anonymous.body.dump();
    const wrong = await request(`${storage.base}/api/storage/internal/mounts/${mount.id}/locate?path=x`, {
      headers: { 'x-svc-service-token': 'nope' },
    });
    expect(wrong.statusCode).toBe(403);
    await wrong.body.dump();
  });

  it('names the real path, size and mtime of a file on a local mount', async () => {
    const file = path.join(root, 'Movies', 'Heat (1995)', 'Heat (1995).mkv');
    for (const form of ['Movies/Heat (1995)/Heat (1995).mkv', '/Movies/Heat (1995)/Heat (1995).mkv']) {
      const response = await locate(mount.id, form);
      expect(response.status, response.body.toString()).toBe(200);
      const body = locateResponseSchema.parse(response.json());
      expect(body).toEqual({
        localPath: realpathSync(file),
        size: 1234,
        mtime: statSync(file).mtime.toISOString(),
      });
      expect(path.isAbsolute(body.localPath!)).toBe(true);
    }
    const literal = await locate(mount.id, 'Movies/a%20b.mkv');
    expect(literal.json<LocateResponse>().localPath).toBe(
      realpathSync(path.join(root, 'Movies', 'a%20b.mkv')),
    );
  });

  it('answers the real file behind a link that stays inside the mount', async () => {
    const response = await locate(mount.id, 'Favourites/Heat (1995).mkv');
    expect(response.status).toBe(200);
    expect(response.json<LocateResponse>().localPath).toBe(
      realpathSync(path.join(root, 'Movies', 'Heat (1995)', 'Heat (1995).mkv')),
    );
  });

  it('gives the play-agent what it needs to open the file and check it with fstat', async () => {
    const body = (await locate(mount.id, 'Movies/Heat (1995)/Heat (1995).mkv')).json<LocateResponse>();
    const opened = await openLocalFile(body.localPath!, { size: body.size, mtime: body.mtime });
    expect(opened.ok).toBe(true);
    if (opened.ok) await opened.source.close();
  });

  it('refuses traversal and links that lead out of the mount, leaving everything as it was', async () => {
    const before = snapshot(root);
    const refused: [string, number, string][] = [
      ['../secret.mkv', 400, 'INVALID_PATH'],
      ['Movies/../../secret.mkv', 400, 'INVALID_PATH'],
      ['%2e%2e/secret.mkv', 400, 'INVALID_PATH'],
      ['Movies%2f..%2f..%2fsecret.mkv', 400, 'INVALID_PATH'],
      ['%252e%252e/secret.mkv', 400, 'INVALID_PATH'],
      ['//etc/passwd', 400, 'INVALID_PATH'],
      ['C:/Windows/win.ini', 400, 'INVALID_PATH'],
      ['Movies\\..\\..\\secret.mkv', 400, 'INVALID_PATH'],
      ['Movies//Heat (1995)', 400, 'INVALID_PATH'],
      ['Movies/.svc-tmp-partial', 400, 'INVALID_PATH'],
      ['Movies/escape.mkv', 403, 'PATH_ESCAPES_MOUNT'],
      ['Outside/secret.mkv', 403, 'PATH_ESCAPES_MOUNT'],
      ['Movies/dangling.mkv', 403, 'PATH_ESCAPES_MOUNT'],
    ];
    for (const [raw, status, errorCode] of refused) {
      const response = await locate(mount.id, raw);
      expect(response.status, raw).toBe(status);
      expect(code(response), raw).toBe(errorCode);
      expect(response.body.toString()).not.toContain(outside);
    }
    // An absolute path in the media service's form means "from the mount root", never the machine's root.
    const rooted = await locate(mount.id, '/etc/passwd');
    expect(rooted.status).toBe(404);
    expect(snapshot(root)).toEqual(before);
  });

  it('answers 404 for nothing, 409 for a folder, 400 without a path, 404 for an unknown mount', async () => {
    const missing = await locate(mount.id, 'Movies/none.mkv');
    expect(missing.status).toBe(404);
    const folder = await locate(mount.id, 'Movies');
    expect(folder.status).toBe(409);
    expect(code(folder)).toBe('IS_A_DIRECTORY');
    const noPath = await locate(mount.id, null);
    expect(noPath.status).toBe(400);
    const unknown = await locate('00000000-0000-4000-8000-00000000dead', 'x.mkv');
    expect(unknown.status).toBe(404);
  });

  it('answers localPath null on a WebDAV mount, with size and mtime', async () => {
    const response = await locate(dav.id, 'remote.mkv');
    expect(response.status, response.body.toString()).toBe(200);
    const body = response.json<LocateResponse>();
    expect(body.localPath).toBeNull();
    expect(body.size).toBe(77);
    expect(Number.isNaN(Date.parse(body.mtime))).toBe(false);
    const escaped = await locate(dav.id, '../remote.mkv');
    expect(escaped.status).toBe(400);
  });
});
