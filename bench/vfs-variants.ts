// The contenders of the vfs bench, each able to start from an empty cache (docs/vfs-cache.md, "Bench").
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_VFS_CACHE_CONFIG } from '@svc/contracts';
import { openLocalFile } from '../packages/server/src/services/play-agent/stream/sources.js';
import { VfsCache } from '../packages/server/src/services/play-agent/vfs/vfs-cache.js';
import { linkIdle, settled } from '../packages/server/test/vfs-e2e/cache-fixture.js';
import { serveMedia, type MediaServer } from '../packages/server/test/vfs-e2e/media-server.js';
import { mediaSource } from '../packages/server/test/vfs-e2e/play-source.js';
import { stopChild, type VfsOrigin } from '../packages/server/test/vfs-e2e/vfs-origin.js';
import { freePort, waitUntil } from './support.js';
import type { FilmFacts } from './vfs-media.js';
import { diskBytes } from './vfs-measure.js';

const run = promisify(execFile);

/** One contender with an empty cache (or none): its URL, and its disk once its background work ended. */
export interface Endpoint {
  url(file: string): string;
  /** Waits until background work (the startup job, rclone's writes) ended and the link is idle. */
  settle(): Promise<void>;
  diskBytes(): Promise<number>;
  close(): Promise<void>;
}

export interface Variant {
  name: string;
  /** Whether it keeps bytes: it then gets a warm row. */
  caches: boolean;
  open(): Promise<Endpoint>;
}

async function shared(server: MediaServer, origin: VfsOrigin): Promise<Endpoint> {
  return {
    url: (file) => server.url(file),
    settle: () => linkIdle(origin.proxy),
    diskBytes: async () => 0,
    close: async () => undefined,
  };
}

/** The file read from local disk by the play-agent's sender: the floor every other figure is set against. */
export async function localReference(origin: VfsOrigin): Promise<Variant & { stop(): Promise<void> }> {
  const server = await serveMedia(async (file) => {
    const opened = await openLocalFile(path.join(origin.davDir, file), null);
    if (!opened.ok) throw new Error(`cannot open ${file}`);
    return opened.source;
  });
  return {
    name: 'local file (reference)',
    caches: false,
    open: () => shared(server, origin),
    stop: () => server.close(),
  };
}

/** As in playback: the library's size, mtime, duration and bitrate reach the play-agent (no HEAD first). */
function libraryFacts(films: ReadonlyMap<string, FilmFacts>, file: string) {
  const facts = [...films.values()].find((film) => film.file === file);
  if (!facts) throw new Error(`unknown file ${file}`);
  return facts;
}

export async function playAgentPlain(
  origin: VfsOrigin,
  films: ReadonlyMap<string, FilmFacts>,
): Promise<Variant & { stop(): Promise<void> }> {
  const server = await serveMedia((file) => {
    const facts = libraryFacts(films, file);
    return mediaSource(origin, null, file, {}, { size: facts.size, mtime: facts.mtime });
  });
  return {
    name: 'play-agent, no cache',
    caches: false,
    open: () => shared(server, origin),
    stop: () => server.close(),
  };
}

/** The play-agent with SMART_STARTUP (BALANCED preset), a new cache directory each time. */
export function playAgentSmart(
  origin: VfsOrigin,
  films: ReadonlyMap<string, FilmFacts>,
  work: string,
): Variant {
  const config = { ...DEFAULT_VFS_CACHE_CONFIG, enabled: true, mode: 'SMART_STARTUP' as const };
  return {
    name: 'play-agent SMART_STARTUP',
    caches: true,
    async open() {
      const dir = mkdtempSync(path.join(work, 'ours-'));
      const cache = await VfsCache.open(config, dir);
      const server = await serveMedia((file) => {
        const facts = libraryFacts(films, file);
        const wrap = { durationSeconds: facts.durationSeconds, bitrate: facts.bitrate };
        return mediaSource(origin, cache, file, wrap, { size: facts.size, mtime: facts.mtime });
      });
      return {
        url: (file) => server.url(file),
        settle: () => settled(cache, origin.proxy),
        diskBytes: () => diskBytes(dir),
        async close() {
          await server.close();
          await cache.stop();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

/** `rclone serve http` of the same origin with its VFS cache in a new directory each time. */
export function rcloneHttp(origin: VfsOrigin, mode: 'full' | 'off', work: string): Variant {
  return {
    name: `rclone --vfs-cache-mode ${mode}`,
    caches: mode === 'full',
    async open() {
      const dir = mkdtempSync(path.join(work, `rclone-${mode}-`));
      const port = await freePort();
      const { stdout: obscured } = await run('rclone', ['obscure', 'dav-pass']);
      const child = spawn(
        'rclone',
        [
          ['serve', 'http', ':webdav:', '--webdav-url', `${origin.proxy.url}/`],
          ['--webdav-user', 'dav', '--webdav-pass', obscured.trim()],
          ['--addr', `127.0.0.1:${port}`, '--vfs-cache-mode', mode, '--cache-dir', dir],
        ].flat(),
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
      const base = `http://127.0.0.1:${port}/`;
      await waitUntil(async () => (await fetch(base).catch(() => null))?.ok === true, 60_000);
      // The listing above crossed the link (a PROPFIND); measurements start on an idle link.
      await linkIdle(origin.proxy);
      return {
        url: (file) => `${base}${encodeURIComponent(file)}`,
        settle: () => linkIdle(origin.proxy),
        diskBytes: () => diskBytes(dir),
        async close() {
          await stopChild(child);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}
