// `npm run bench -- vfs`: the play-agent's video cache against rclone's VFS cache, all reading the same
// WebDAV origin through one throttled link (docs/vfs-cache.md, "Bench").
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_VFS_CACHE_CONFIG, VFS_PRESET_VALUES } from '@svc/contracts';
import { openLocalFile } from '../packages/server/src/services/play-agent/stream/sources.js';
import { VfsCache } from '../packages/server/src/services/play-agent/vfs/vfs-cache.js';
import { linkIdle } from '../packages/server/test/vfs-e2e/cache-fixture.js';
import { serveMedia, type MediaServer } from '../packages/server/test/vfs-e2e/media-server.js';
import { mediaSource } from '../packages/server/test/vfs-e2e/play-source.js';
import {
  makeMedia,
  MEDIA_FILES,
  startVfsOrigin,
  stopChild,
  type MediaKind,
  type VfsOrigin,
} from '../packages/server/test/vfs-e2e/vfs-origin.js';
import { freePort, mib, waitUntil } from './support.js';

const run = promisify(execFile);
const MiB = 1024 * 1024;
// A far NAS over a home uplink: 50 ms away, 4 MiB/s (about 34 Mbit/s).
const LINK = { latencyMs: 50, bytesPerSecond: 4 * MiB };
const CLIP_SECONDS = 40;
const KINDS = Object.keys(MEDIA_FILES) as MediaKind[];

interface Figures {
  ttfbMs: number;
  probeMs: number;
  seekMs: number;
  upstreamBytes: number;
  diskBytes: number;
}

/** Milliseconds until the first body byte of a ranged GET (the connection is dropped after it). */
async function firstByteMs(url: string, range: string): Promise<number> {
  const started = performance.now();
  const controller = new AbortController();
  const response = await fetch(url, { headers: { range }, signal: controller.signal });
  const reader = response.body!.getReader();
  const { value } = (await reader.read()) as { value?: Uint8Array };
  const ms = performance.now() - started;
  if (!value?.length) throw new Error(`no body from ${url}`);
  controller.abort();
  await reader.cancel().catch(() => undefined);
  return ms;
}

async function probeMs(url: string): Promise<number> {
  const started = performance.now();
  await run('ffprobe', ['-v', 'error', '-show_format', '-show_streams', url], { timeout: 300_000 });
  return performance.now() - started;
}

/** Bytes a folder holds on disk (allocated blocks: sparse cache files count what they really use). */
async function diskBytes(folder: string): Promise<number> {
  const { stdout } = await run('du', ['-s', '--block-size=1', folder]);
  return Number(stdout.split(/\s/)[0]);
}

/** One start of playback: first byte, the probe tool, a seek to the middle; upstream bytes of all three. */
async function measure(
  origin: VfsOrigin,
  url: string,
  size: number,
  cacheDir: string | null,
): Promise<Figures> {
  await linkIdle(origin.proxy);
  const before = origin.proxy.stats.getBytes;
  const ttfbMs = await firstByteMs(url, 'bytes=0-');
  const probe = await probeMs(url);
  const seekMs = await firstByteMs(url, `bytes=${Math.floor(size / 2)}-`);
  await linkIdle(origin.proxy);
  return {
    ttfbMs,
    probeMs: probe,
    seekMs,
    upstreamBytes: origin.proxy.stats.getBytes - before,
    diskBytes: cacheDir ? await diskBytes(cacheDir) : 0,
  };
}

async function startRcloneHttp(
  origin: VfsOrigin,
  mode: 'full' | 'off',
  cacheDir: string,
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const { stdout: obscured } = await run('rclone', ['obscure', 'dav-pass']);
  const child = spawn(
    'rclone',
    [
      'serve',
      'http',
      ':webdav:',
      '--webdav-url',
      `${origin.proxy.url}/`,
      '--webdav-user',
      'dav',
      '--webdav-pass',
      obscured.trim(),
      '--addr',
      `127.0.0.1:${port}`,
      '--vfs-cache-mode',
      mode,
      '--cache-dir',
      cacheDir,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const url = `http://127.0.0.1:${port}/`;
  await waitUntil(async () => (await fetch(url).catch(() => null))?.ok === true, 30_000);
  return { url, child };
}

const ms = (value: number) => `${value.toFixed(0)} ms`;

export async function benchVfs(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-vfs-'));
  const origin = await startVfsOrigin(LINK);
  const servers: MediaServer[] = [];
  const rows: string[] = [];
  const goals: string[] = [];
  try {
    const sizes = new Map<MediaKind, number>();
    for (const kind of KINDS) {
      await makeMedia(origin.davDir, kind, CLIP_SECONDS);
      const { stdout } = await run('stat', ['-c', '%s', path.join(origin.davDir, MEDIA_FILES[kind])]);
      sizes.set(kind, Number(stdout));
    }
    const load = loadavg().map((value) => value.toFixed(1));
    console.log(
      `vfs bench: load average ${load.join(' ')} (2 cores); link ${LINK.latencyMs} ms, ${mib(LINK.bytesPerSecond)}/s`,
    );

    const local = await serveMedia(async (file) => {
      const opened = await openLocalFile(path.join(origin.davDir, file), null);
      if (!opened.ok) throw new Error(`cannot open ${file}`);
      return opened.source;
    });
    servers.push(local);
    const ours = path.join(work, 'ours');
    const balanced = { ...DEFAULT_VFS_CACHE_CONFIG, enabled: true, mode: 'SMART_STARTUP' as const };
    const cache = await VfsCache.open(balanced, ours);
    // As in playback, the library's size and mtime: no HEAD before reading.
    const known = (file: string) => {
      const info = statSync(path.join(origin.davDir, file));
      return { size: info.size, mtime: info.mtimeMs };
    };
    const cached = await serveMedia((file) => mediaSource(origin, cache, file, {}, known(file)));
    servers.push(cached);
    const plain = await serveMedia((file) => mediaSource(origin, null, file, {}, known(file)));
    servers.push(plain);

    const results = new Map<string, Figures>();
    const record = (variant: string, kind: MediaKind, figures: Figures) => {
      results.set(`${variant}/${kind}`, figures);
      rows.push(
        `| ${variant} | ${kind} | ${ms(figures.ttfbMs)} | ${ms(figures.probeMs)} | ${ms(figures.seekMs)} | ${mib(figures.upstreamBytes)} | ${mib(figures.diskBytes)} |`,
      );
    };
    for (const kind of KINDS) {
      const file = MEDIA_FILES[kind];
      const size = sizes.get(kind)!;
      record('local file (reference)', kind, await measure(origin, local.url(file), size, null));
      record('play-agent, no cache', kind, await measure(origin, plain.url(file), size, null));
      const entryDir = () => diskBytes(ours);
      const before = await entryDir();
      const cold = await measure(origin, cached.url(file), size, null);
      cold.diskBytes = (await entryDir()) - before;
      record('play-agent SMART_STARTUP cold', kind, cold);
      const warm = await measure(origin, cached.url(file), size, null);
      warm.diskBytes = (await entryDir()) - before;
      record('play-agent SMART_STARTUP warm', kind, warm);
    }
    await cache.stop();

    for (const mode of ['full', 'off'] as const) {
      const dir = path.join(work, `rclone-${mode}`);
      mkdirSync(dir, { recursive: true });
      const rclone = await startRcloneHttp(origin, mode, dir);
      try {
        for (const kind of KINDS) {
          const file = MEDIA_FILES[kind];
          const size = sizes.get(kind)!;
          const before = await diskBytes(dir);
          const cold = await measure(origin, `${rclone.url}${file}`, size, null);
          cold.diskBytes = (await diskBytes(dir)) - before;
          record(`rclone --vfs-cache-mode ${mode} cold`, kind, cold);
          if (mode === 'full') {
            const warm = await measure(origin, `${rclone.url}${file}`, size, null);
            warm.diskBytes = (await diskBytes(dir)) - before;
            record(`rclone --vfs-cache-mode ${mode} warm`, kind, warm);
          }
        }
      } finally {
        await stopChild(rclone.child);
      }
    }

    const cap = VFS_PRESET_VALUES.BALANCED.perFileHardCapBytes;
    for (const kind of KINDS) {
      const get = (variant: string) => results.get(`${variant}/${kind}`)!;
      const localRef = get('local file (reference)');
      const warm = get('play-agent SMART_STARTUP warm');
      const cold = get('play-agent SMART_STARTUP cold');
      const rcloneCold = get('rclone --vfs-cache-mode full cold');
      const check = (ok: boolean, text: string) => goals.push(`${ok ? 'met   ' : 'MISSED'} ${kind}: ${text}`);
      check(
        warm.ttfbMs <= 2 * localRef.ttfbMs,
        `warm TTFB ${ms(warm.ttfbMs)} within 2x of local ${ms(localRef.ttfbMs)}`,
      );
      check(
        cold.probeMs >= 5 * warm.probeMs,
        `warm ffprobe ${ms(warm.probeMs)} at least 5x faster than cold ${ms(cold.probeMs)}`,
      );
      check(
        warm.diskBytes <= cap,
        `disk per file ${mib(warm.diskBytes)} within the BALANCED cap ${mib(cap)}`,
      );
      check(
        cold.upstreamBytes <= rcloneCold.upstreamBytes,
        `first-open upstream ${mib(cold.upstreamBytes)} not above rclone full's ${mib(rcloneCold.upstreamBytes)}`,
      );
    }
    console.log(
      `\nclips: ${CLIP_SECONDS} s, ${KINDS.map((kind) => `${kind} ${mib(sizes.get(kind)!)}`).join(', ')}`,
    );
    console.log('| variant | file | TTFB | ffprobe | seek to middle | upstream bytes | disk |');
    console.log('|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
    console.log(
      `\nload average after: ${loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')}`,
    );
    console.log('goals:');
    for (const goal of goals) console.log(`  ${goal}`);
  } finally {
    for (const server of servers) await server.close();
    await origin.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
