import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { Mount, ProbeResponse, WalkLine } from '@svc/contracts';
import { installBackends } from '../../support/install-backends.js';
import { q, serviceHeaders, startStorage, type StorageHarness } from './storage-harness.js';

/** A short Matroska file with video, two audio tracks and a forced subtitle, made by ffmpeg. */
function makeClip(file: string, scratch: string): void {
  const subtitles = path.join(scratch, 'subtitles.srt');
  writeFileSync(subtitles, '1\n00:00:00,000 --> 00:00:00,900\nHallo\n');
  const result = spawnSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=duration=1:size=320x240:rate=10',
    '-f',
    'lavfi',
    '-i',
    'sine=duration=1',
    '-f',
    'lavfi',
    '-i',
    'sine=duration=1:frequency=880',
    '-i',
    subtitles,
    '-map',
    '0',
    '-map',
    '1',
    '-map',
    '2',
    '-map',
    '3',
    '-c:v',
    'mpeg4',
    '-c:a',
    'aac',
    '-ac:a:1',
    '6',
    '-c:s',
    'srt',
    '-metadata:s:a:0',
    'language=eng',
    '-metadata:s:a:1',
    'language=jpn',
    '-metadata:s:a:1',
    'title=Surround',
    '-metadata:s:s:0',
    'language=ger',
    '-metadata:s:s:0',
    'title=Forced',
    '-disposition:v:0',
    'default',
    '-disposition:a:0',
    'default',
    '-disposition:a:1',
    '0',
    '-disposition:s:0',
    'forced',
    '-y',
    file,
  ]);
  if (result.status !== 0) throw new Error(`ffmpeg failed: ${result.stderr.toString()}`);
}

describe.each(installBackends())('internal API for the media service on $label', (backend) => {
  let storage: StorageHarness;
  let mount: Mount;
  let root: string;

  beforeAll(async () => {
    storage = await startStorage(backend.env);
    ({ mount, root } = await storage.localMount('library'));
    mkdirSync(path.join(root, 'Movies', 'Heat (1995)'), { recursive: true });
    mkdirSync(path.join(root, 'Movies', 'Alien (1979)'), { recursive: true });
    mkdirSync(path.join(root, 'Shows'));
    writeFileSync(path.join(root, 'Movies', 'Heat (1995)', 'Heat (1995).mkv'), 'x'.repeat(123));
    writeFileSync(path.join(root, 'Movies', 'Heat (1995)', '.svc-tmp-partial'), 'partial');
    writeFileSync(path.join(root, 'Movies', 'Alien (1979)', 'Alien (1979).mp4'), 'y');
    writeFileSync(path.join(root, 'readme.txt'), 'hello');
    symlinkSync(path.join(root, 'Movies'), path.join(root, 'Shows', 'loop'));
    makeClip(path.join(root, 'clip.mkv'), storage.tempDir('svc-clip-'));
  });

  afterAll(async () => {
    await storage?.stop();
    await backend.cleanup();
  });

  const internal = (
    url: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) =>
    storage.api(init.method ?? 'GET', url, {
      identity: null,
      ...(init.body === undefined ? {} : { body: init.body }),
      ...(init.headers ? { headers: init.headers } : {}),
    });

  it('is for services only', async () => {
    const response = await request(`${storage.base}/api/storage/internal/mounts`);
    expect(response.statusCode).toBe(401);
    await response.body.dump();
    const wrong = await request(`${storage.base}/api/storage/internal/mounts`, {
      headers: { 'x-svc-service-token': 'nope' },
    });
    expect(wrong.statusCode).toBe(403);
    await wrong.body.dump();
  });

  it('lists the mounts', async () => {
    const response = await internal('/api/storage/internal/mounts');
    expect(response.json()).toEqual({ mounts: [{ id: mount.id, name: 'library', provider: 'local' }] });
  });

  it('walks a tree as NDJSON, folder entries first, temp files and link loops left out', async () => {
    const response = await internal(`/api/storage/internal/mounts/${mount.id}/walk`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toContain('application/x-ndjson');
    const lines = response.body
      .toString()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as WalkLine);
    expect(lines.map((line) => `${line.type} ${line.path}`)).toEqual([
      'file clip.mkv',
      'dir Movies',
      'file readme.txt',
      'dir Shows',
      'dir Movies/Alien (1979)',
      'dir Movies/Heat (1995)',
      'file Movies/Alien (1979)/Alien (1979).mp4',
      'file Movies/Heat (1995)/Heat (1995).mkv',
      'dir Shows/loop',
    ]);
    const heat = lines.find((line) => line.path.endsWith('Heat (1995).mkv'))!;
    expect(heat.size).toBe(123);
    expect(heat.mtime).toBe(
      statSync(path.join(root, 'Movies', 'Heat (1995)', 'Heat (1995).mkv')).mtime.toISOString(),
    );

    const below = await internal(
      `/api/storage/internal/mounts/${mount.id}/walk?path=${q('/Movies/Heat (1995)')}`,
    );
    expect(below.body.toString().trim().split('\n')).toHaveLength(1);
    const file = await internal(`/api/storage/internal/mounts/${mount.id}/walk?path=readme.txt`);
    expect(file.status).toBe(409);
    const missing = await internal(`/api/storage/internal/mounts/${mount.id}/walk?path=Nope`);
    expect(missing.status).toBe(404);
    const unknown = await internal('/api/storage/internal/mounts/00000000-0000-4000-8000-00000000abcd/walk');
    expect(unknown.status).toBe(404);
  });

  it('streams a large walk as it goes', async () => {
    const many = path.join(root, 'Many');
    mkdirSync(many);
    for (let i = 0; i < 5000; i++) writeFileSync(path.join(many, `episode ${i}.mkv`), '');
    const response = await request(`${storage.base}/api/storage/internal/mounts/${mount.id}/walk?path=Many`, {
      headers: serviceHeaders(storage.install, null),
    });
    let chunks = 0;
    let lines = 0;
    for await (const chunk of response.body) {
      chunks += 1;
      lines += (chunk as Buffer).toString().split('\n').length - 1;
    }
    expect(lines).toBe(5000);
    expect(chunks).toBeGreaterThan(1);
  });

  it('serves file bytes with ranges and HEAD', async () => {
    const url = `/api/storage/internal/mounts/${mount.id}/file?path=readme.txt`;
    const whole = await internal(url);
    expect(whole.body.toString()).toBe('hello');
    expect(whole.headers['content-disposition']).toBeUndefined();
    const part = await internal(url, { headers: { range: 'bytes=1-3' } });
    expect(part.status).toBe(206);
    expect(part.body.toString()).toBe('ell');
    const head = await internal(url, { method: 'HEAD' });
    expect(head.headers['content-length']).toBe('5');
    expect(head.body.length).toBe(0);
  });

  it('reports the probe tool, in its answer and in the health checks', async () => {
    const tool = await internal('/api/storage/internal/probe-tool');
    const status = tool.json<{ available: boolean; version: string | null }>();
    expect(status.available).toBe(true);
    expect(status.version).toMatch(/\S/);
    const health = await request(`${storage.base}/api/storage/ping`);
    expect(await health.body.json()).toMatchObject({ status: 'UP', checks: { database: 'UP', probe: 'UP' } });
  });

  it('probes a media file with ffprobe', async () => {
    const response = await internal(`/api/storage/internal/mounts/${mount.id}/probe`, {
      method: 'POST',
      body: { path: 'clip.mkv' },
    });
    expect(response.status, response.body.toString()).toBe(200);
    const { available, result } = response.json<ProbeResponse>();
    expect(available).toBe(true);
    expect(result?.container).toBe('matroska,webm');
    expect(result?.durationSeconds).toBeGreaterThan(0.5);
    expect(result?.size).toBe(statSync(path.join(root, 'clip.mkv')).size);
    expect(result?.bitrate).toBeGreaterThan(0);
    expect(result?.streams).toEqual([
      { index: 0, type: 'video', codec: 'mpeg4', width: 320, height: 240, default: true, forced: false },
      { index: 1, type: 'audio', codec: 'aac', language: 'eng', channels: 1, default: true, forced: false },
      {
        index: 2,
        type: 'audio',
        codec: 'aac',
        language: 'jpn',
        channels: 6,
        title: 'Surround',
        default: false,
        forced: false,
      },
      {
        index: 3,
        type: 'subtitle',
        codec: 'subrip',
        language: 'ger',
        title: 'Forced',
        default: false,
        forced: true,
      },
    ]);
  });

  it('answers probe errors with the error body', async () => {
    const garbage = await internal(`/api/storage/internal/mounts/${mount.id}/probe`, {
      method: 'POST',
      body: { path: 'readme.txt' },
    });
    expect(garbage.status).toBe(422);
    expect(garbage.json()).toMatchObject({ error: { code: 'PROBE_FAILED' } });
    expect(garbage.body.toString()).not.toContain(root);
    const folder = await internal(`/api/storage/internal/mounts/${mount.id}/probe`, {
      method: 'POST',
      body: { path: 'Movies' },
    });
    expect(folder.status).toBe(409);
    const missing = await internal(`/api/storage/internal/mounts/${mount.id}/probe`, {
      method: 'POST',
      body: { path: 'none.mkv' },
    });
    expect(missing.status).toBe(404);
  });
});

describe('a storage node without ffprobe', () => {
  let storage: StorageHarness;

  beforeAll(async () => {
    storage = await startStorage({ SVC_DB_MODE: 'bundled' }, { ffprobe: '/nonexistent/ffprobe' });
  });

  afterAll(async () => {
    await storage?.stop();
  });

  it('says so, stays healthy (DEGRADED check) and answers probes with available: false', async () => {
    const tool = await storage.api('GET', '/api/storage/internal/probe-tool', { identity: null });
    expect(tool.json()).toEqual({ available: false, version: null });
    const health = await request(`${storage.base}/health`);
    expect(health.statusCode).toBe(200);
    expect(await health.body.json()).toMatchObject({ status: 'UP', checks: { probe: 'DEGRADED' } });
    const { mount, root } = await storage.localMount('plain');
    writeFileSync(path.join(root, 'a.mkv'), 'a');
    const probe = await storage.api('POST', `/api/storage/internal/mounts/${mount.id}/probe`, {
      identity: null,
      body: { path: 'a.mkv' },
    });
    expect(probe.json()).toEqual({ available: false });
  });
});
