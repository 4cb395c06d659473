import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, type Dispatcher } from 'undici';
import type { Mount, Transfer, Upload } from '@svc/contracts';
import { encodeIdentity } from '../../../src/platform/http/route-auth.js';
import { installBackends } from '../../support/install-backends.js';
import { portEnv } from '../../support/ports.js';
import { waitFor } from '../../support/runtime.js';
import { runSvc, SVC_BUNDLE, type SvcProcess } from '../../support/svc-process.js';
import { ADMIN } from './storage-harness.js';

const MB = 1024 * 1024;
const CHUNK = 8 * MB;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
const serverSources = path.join(repoRoot, 'packages/server/src');

/** The newest modification time under a folder. */
async function newest(dir: string): Promise<number> {
  let latest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile())
      latest = Math.max(latest, (await stat(path.join(entry.parentPath, entry.name))).mtimeMs);
  }
  return latest;
}

/** Writes `size` random bytes to a file in 1 MiB pieces; returns the SHA-256. */
function randomFile(file: string, size: number): string {
  const hash = createHash('sha256');
  const fd = openSync(file, 'w');
  try {
    for (let written = 0; written < size; written += MB) {
      const piece = randomBytes(Math.min(MB, size - written));
      hash.update(piece);
      writeSync(fd, piece);
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

function sha256File(file: string): string {
  const hash = createHash('sha256');
  const fd = openSync(file, 'r');
  const buffer = Buffer.alloc(4 * MB);
  try {
    let read: number;
    while ((read = readSync(fd, buffer, 0, buffer.length, null)) > 0) hash.update(buffer.subarray(0, read));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

function readSlice(file: string, offset: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, length, offset);
  } finally {
    closeSync(fd);
  }
  return buffer;
}

const temps = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('.svc-tmp-'));

describe.each(installBackends())('crash safety of the real storage node process on $label', (backend) => {
  const work = mkdtempSync(path.join(tmpdir(), 'svc-crash-'));
  const dataDir = path.join(work, 'data');
  const source = path.join(work, 'source');
  const target = path.join(work, 'target');
  const uploadSource = path.join(work, 'upload-source.bin');
  let env: Record<string, string>;
  let node: SvcProcess | undefined;
  let base: string;
  let mount: Mount;
  let targetMount: Mount;
  let sourceSha: string;

  const headers = () => ({
    'x-svc-service-token': env.SVC_SERVICE_TOKEN!,
    'x-svc-identity': encodeIdentity(ADMIN),
  });
  async function api<T>(
    method: string,
    url: string,
    body?: unknown,
    raw?: Buffer,
  ): Promise<{ status: number; body: T }> {
    const response: Dispatcher.ResponseData = await request(`${base}${url}`, {
      method: method,
      headers: {
        ...headers(),
        ...(raw
          ? { 'content-type': 'application/octet-stream' }
          : body !== undefined
            ? { 'content-type': 'application/json' }
            : {}),
      },
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await response.body.text();
    return { status: response.statusCode, body: (text ? JSON.parse(text) : undefined) as T };
  }

  async function startNode(): Promise<void> {
    node = runSvc(['node', 'storage'], env);
    await node.waitForLog(/"msg":"ready"/, 90_000);
  }

  async function killNode(): Promise<void> {
    if (!node) return;
    node.child.kill('SIGKILL');
    const exit = await node.exited;
    expect(exit.signal).toBe('SIGKILL');
    node = undefined;
  }

  beforeAll(async () => {
    // The test drives the built program; rebuild it when the sources are newer than the bundle.
    if (!existsSync(SVC_BUNDLE) || statSync(SVC_BUNDLE).mtimeMs < (await newest(serverSources))) {
      const build = spawnSync(process.execPath, ['scripts/build.mjs', 'server'], {
        cwd: repoRoot,
        stdio: 'inherit',
      });
      if (build.status !== 0) throw new Error('building the svc bundle failed');
    }
    const ports = await portEnv();
    env = {
      ...ports,
      ...backend.env,
      SVC_DATA_DIR: dataDir,
      SVC_SERVICE_TOKEN: 'svc_st_crash_test_token_0123456789abcdefghij',
      SVC_BIND_HOST: '127.0.0.1',
      SVC_NODE_ID: 'node-crash-test',
      SVC_LOG_LEVEL: 'info',
    };
    base = `http://127.0.0.1:${ports.SVC_STORAGE_PORT}`;
    for (const dir of [source, target]) spawnSync('mkdir', ['-p', dir]);
    sourceSha = randomFile(path.join(source, 'movie.mkv'), 300 * MB);
    await startNode();
    const created = await api<Mount>('POST', '/api/storage/mounts', {
      name: 'source',
      provider: 'local',
      config: { root: source },
    });
    expect(created.status).toBe(201);
    mount = created.body;
    const second = await api<Mount>('POST', '/api/storage/mounts', {
      name: 'target',
      provider: 'local',
      config: { root: target },
    });
    expect(second.status).toBe(201);
    targetMount = second.body;
  });

  afterAll(async () => {
    if (node && node.child.exitCode === null && node.child.signalCode === null) {
      node.child.kill('SIGKILL');
      await node.exited;
    }
    rmSync(work, { recursive: true, force: true });
    await backend.cleanup();
  });

  it('a copy killed half-way leaves the source intact and only a temp file, which the restart removes; retry succeeds', async () => {
    const started = await api<Transfer>('POST', `/api/storage/mounts/${mount.id}/copy`, {
      path: 'movie.mkv',
      targetMountId: targetMount.id,
      targetPath: 'movie.mkv',
      maxBytesPerSecond: 40 * MB,
    });
    expect(started.status).toBe(202);
    const id = started.body.id;
    await waitFor(
      async () => {
        const { body } = await api<Transfer>('GET', `/api/storage/transfers/${id}`);
        return body.bytes.done > 60 * MB ? true : undefined;
      },
      30_000,
      50,
    );
    await killNode();

    expect(sha256File(path.join(source, 'movie.mkv'))).toBe(sourceSha);
    expect(existsSync(path.join(target, 'movie.mkv'))).toBe(false);
    const leftovers = temps(target);
    expect(leftovers).toHaveLength(1);
    const partial = statSync(path.join(target, leftovers[0]!)).size;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(300 * MB);

    await startNode();
    expect(temps(target)).toEqual([]);
    const interrupted = await api<Transfer>('GET', `/api/storage/transfers/${id}`);
    expect(interrupted.body).toMatchObject({ state: 'failed', error: { code: 'INTERRUPTED' } });

    const retried = await api<Transfer>('POST', `/api/storage/transfers/${id}/retry`);
    expect(retried.status).toBe(202);
    const done = await waitFor(
      async () => {
        const { body } = await api<Transfer>('GET', `/api/storage/transfers/${id}`);
        return body.state === 'running' || body.state === 'queued' ? undefined : body;
      },
      60_000,
      100,
    );
    expect(done).toMatchObject({
      state: 'succeeded',
      attempt: 2,
      bytes: { done: 300 * MB, total: 300 * MB },
    });
    expect(sha256File(path.join(target, 'movie.mkv'))).toBe(sourceSha);
    expect(sha256File(path.join(source, 'movie.mkv'))).toBe(sourceSha);
    expect(temps(target)).toEqual([]);
  });

  it('an upload killed between chunks resumes after the restart', async () => {
    const size = 24 * CHUNK + 12_345;
    const sha = randomFile(uploadSource, size);
    const created = await api<Upload>('POST', `/api/storage/mounts/${targetMount.id}/uploads`, {
      path: 'uploaded.bin',
      size,
      sha256: sha,
    });
    expect(created.status).toBe(201);
    const upload = created.body;
    const send = async (index: number) => {
      const length = Math.min(CHUNK, size - index * CHUNK);
      const response = await api(
        'PUT',
        `/api/storage/mounts/${targetMount.id}/uploads/${upload.id}/chunks/${index}`,
        undefined,
        readSlice(uploadSource, index * CHUNK, length),
      );
      expect(response.status).toBe(200);
    };
    for (let index = 0; index < 12; index++) await send(index);
    await killNode();
    expect(existsSync(path.join(target, 'uploaded.bin'))).toBe(false);

    await startNode();
    const state = await api<Upload>('GET', `/api/storage/mounts/${targetMount.id}/uploads/${upload.id}`);
    expect(state.body.received).toEqual(Array.from({ length: 12 }, (_, i) => i));
    for (let index = 12; index < upload.chunkCount; index++) await send(index);
    const completed = await api(
      'POST',
      `/api/storage/mounts/${targetMount.id}/uploads/${upload.id}/complete`,
    );
    expect(completed.status).toBe(200);
    expect(sha256File(path.join(target, 'uploaded.bin'))).toBe(sha);
    expect(temps(target)).toEqual([]);
  });

  it('an upload killed during completion never shows a partial file and completes after the restart', async () => {
    const size = 48 * CHUNK;
    const sha = randomFile(uploadSource, size);
    const created = await api<Upload>('POST', `/api/storage/mounts/${targetMount.id}/uploads`, {
      path: 'big-upload.bin',
      size,
      sha256: sha,
    });
    const upload = created.body;
    for (let index = 0; index < upload.chunkCount; index++) {
      const response = await api(
        'PUT',
        `/api/storage/mounts/${targetMount.id}/uploads/${upload.id}/chunks/${index}`,
        undefined,
        readSlice(uploadSource, index * CHUNK, CHUNK),
      );
      expect(response.status).toBe(200);
    }
    // Completion hashes 384 MiB before the rename: kill the node as soon as it has begun.
    const completing = api(
      'POST',
      `/api/storage/mounts/${targetMount.id}/uploads/${upload.id}/complete`,
    ).catch(() => undefined);
    await waitFor(
      async () => {
        const { body } = await api<Upload>(
          'GET',
          `/api/storage/mounts/${targetMount.id}/uploads/${upload.id}`,
        );
        return body.state === 'completing' ? true : undefined;
      },
      10_000,
      5,
    );
    await killNode();
    await completing;
    const final = path.join(target, 'big-upload.bin');
    if (existsSync(final)) {
      // It got all the way: then the file is whole.
      expect(sha256File(final)).toBe(sha);
    } else {
      expect(temps(target)).toContain(`.svc-tmp-${upload.id}`);
    }

    await startNode();
    const interrupted = await api<Upload>(
      'GET',
      `/api/storage/mounts/${targetMount.id}/uploads/${upload.id}`,
    );
    expect(['completing', 'completed']).toContain(interrupted.body.state);
    const completed = await api<{ upload: Upload }>(
      'POST',
      `/api/storage/mounts/${targetMount.id}/uploads/${upload.id}/complete`,
    );
    expect(completed.status).toBe(200);
    expect(completed.body.upload.state).toBe('completed');
    expect(sha256File(final)).toBe(sha);
    expect(temps(target)).toEqual([]);
  });
});
