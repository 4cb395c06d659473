// `VFS_BENCH_TRACE=1 npm run bench -- vfs`: every upstream request of the play-agent's first open of each
// film (docs/vfs-cache.md, "Bench"), with the range asked, the bytes the cache read of it, the bytes that
// crossed the link for it and who asked: where the first open's upstream bytes go.
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_VFS_CACHE_CONFIG } from '@svc/contracts';
import type { ByteRange } from '../packages/server/src/platform/http/file-delivery/range.js';
import {
  upstreamFileSource,
  type MediaBody,
  type MediaSource,
} from '../packages/server/src/services/play-agent/stream/sources.js';
import { VfsCache } from '../packages/server/src/services/play-agent/vfs/vfs-cache.js';
import { settled } from '../packages/server/test/vfs-e2e/cache-fixture.js';
import { serveMedia } from '../packages/server/test/vfs-e2e/media-server.js';
import type { MediaKind, VfsOrigin } from '../packages/server/test/vfs-e2e/vfs-origin.js';
import type { ProxiedRequest } from '../packages/server/test/support/throttling-proxy.js';
import type { FilmFacts } from './vfs-media.js';
import { firstByteMs, median, probeMs, seekMs, startMs } from './vfs-measure.js';
import { localReference, rcloneHttp } from './vfs-variants.js';

const MiB = 1024 * 1024;

type Who = 'stream' | 'index search' | 'probe run' | 'startup fill' | 'other';

interface UpstreamOpen {
  phase: string;
  who: Who;
  range: ByteRange;
  /** Bytes the cache read of the answer (the rest reached the node's buffers, or not even that). */
  read: number;
}

/** Which part of the engine opened an upstream range, from the async stack of the call. */
function whoAsks(stack: string): Who {
  if (stack.includes('fetchPart')) return 'startup fill';
  if (stack.includes('serveRange')) return 'probe run';
  if (stack.includes('findContainerIndex')) return 'index search';
  if (stack.includes('sendMedia')) return 'stream';
  return 'other';
}

/** The upstream of the cache, noting each range opened and the bytes read of it. */
function traced(upstream: MediaSource, opens: UpstreamOpen[], phase: () => string): MediaSource {
  return {
    kind: upstream.kind,
    facts: (signal) => upstream.facts(signal),
    close: () => upstream.close(),
    async open(range, signal) {
      const who = whoAsks(new Error().stack ?? '');
      const noted: UpstreamOpen = { phase: phase(), who, range, read: 0 };
      opens.push(noted);
      const body = await upstream.open(range, signal);
      const counted: MediaBody = {
        read: async () => {
          const chunk = await body.read();
          if (chunk) noted.read += chunk.length;
          return chunk;
        },
        release: (chunk) => body.release(chunk),
        close: () => body.close(),
      };
      return counted;
    },
  };
}

const mib = (bytes: number) => (bytes / MiB).toFixed(2);
const rangeText = (range: ByteRange) => `${mib(range.start)}–${mib(range.end + 1)} MiB`;

/** Pairs each upstream open with the proxy's request of the same range (the storage node forwards it). */
function linkBytes(opens: UpstreamOpen[], log: ProxiedRequest[]): number[] {
  const used = new Set<number>();
  return opens.map(({ range }) => {
    const header = `bytes=${range.start}-${range.end}`;
    const index = log.findIndex((request, at) => !used.has(at) && request.range === header);
    if (index < 0) return 0;
    used.add(index);
    return log[index]!.bytes;
  });
}

/** Medians of repeated warm reads next to the local file's: what a warm open costs over local disk. */
async function warmTimes(url: string, localUrl: string): Promise<string> {
  const times = async (measure: (target: string) => Promise<number>, target: string) => {
    const values: number[] = [];
    for (let round = 0; round < 5; round++) values.push(await measure(target));
    return median(values).toFixed(0);
  };
  const ttfb = (target: string) => firstByteMs(target, 'bytes=0-');
  return (
    `warm TTFB ${await times(ttfb, url)} ms (local ${await times(ttfb, localUrl)} ms), ` +
    `warm ffprobe ${await times(probeMs, url)} ms (local ${await times(probeMs, localUrl)} ms)`
  );
}

async function traceOurs(origin: VfsOrigin, film: FilmFacts, work: string, localUrl: string): Promise<void> {
  const dir = mkdtempSync(path.join(work, 'trace-'));
  const config = { ...DEFAULT_VFS_CACHE_CONFIG, enabled: true, mode: 'SMART_STARTUP' as const };
  const cache = await VfsCache.open(config, dir);
  const opens: UpstreamOpen[] = [];
  let phase = 'probe';
  const server = await serveMedia((file) =>
    upstreamFileSource({
      baseUrl: origin.storageUrl,
      mountId: origin.mount.id,
      path: file,
      serviceToken: origin.serviceToken,
      known: { size: film.size, mtime: film.mtime },
      cache: {
        wrap: (upstream, id) =>
          cache.wrap(
            traced(upstream, opens, () => phase),
            {
              durationSeconds: film.durationSeconds,
              bitrate: film.bitrate,
              ...id,
            },
          ),
      },
    }),
  );
  const firstLog = origin.proxy.log.length;
  const before = origin.proxy.stats.getBytes;
  try {
    const url = server.url(film.file);
    await probeMs(url);
    phase = 'start';
    await startMs(url);
    phase = 'seek';
    await seekMs(url, film.size);
    phase = 'after';
    await settled(cache, origin.proxy);
    const upstream = origin.proxy.stats.getBytes - before;
    const link = linkBytes(opens, origin.proxy.log.slice(firstLog));
    console.log(`play-agent SMART_STARTUP, first open of ${film.file}: ${mib(upstream)} MiB over the link`);
    console.log('| phase | who | range | asked MiB | read MiB | link MiB |');
    console.log('|---|---|---|---|---|---|');
    opens.forEach((open, at) => {
      const asked = open.range.end - open.range.start + 1;
      console.log(
        `| ${open.phase} | ${open.who} | ${rangeText(open.range)} | ${mib(asked)} | ${mib(open.read)} | ${mib(link[at]!)} |`,
      );
    });
    const unread = opens.reduce((sum, open, at) => sum + Math.max(0, link[at]! - open.read), 0);
    const entry = cache.store.entries()[0];
    console.log(
      `requests ${opens.length}; read by the cache ${mib(opens.reduce((sum, open) => sum + open.read, 0))} MiB; ` +
        `crossed the link but not read ${mib(unread)} MiB; kept in the entry ${mib(entry?.cachedBytes ?? 0)} MiB`,
    );
    const warmBefore = origin.proxy.stats.getBytes;
    console.log(await warmTimes(url, localUrl));
    console.log(`warm reads over the link: ${mib(origin.proxy.stats.getBytes - warmBefore)} MiB\n`);
  } finally {
    await server.close();
    await cache.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function traceRclone(origin: VfsOrigin, film: FilmFacts, work: string): Promise<void> {
  const endpoint = await rcloneHttp(origin, 'full', work).open();
  const firstLog = origin.proxy.log.length;
  try {
    const url = endpoint.url(film.file);
    await probeMs(url);
    await startMs(url);
    await seekMs(url, film.size);
    await endpoint.settle();
    const log = origin.proxy.log.slice(firstLog).filter((request) => request.method === 'GET');
    const total = log.reduce((sum, request) => sum + request.bytes, 0);
    console.log(`rclone --vfs-cache-mode full, first open of ${film.file}: ${mib(total)} MiB over the link`);
    for (const request of log) console.log(`  ${request.range ?? '(no range)'}: ${mib(request.bytes)} MiB`);
    console.log('');
  } finally {
    await endpoint.close();
  }
}

export async function traceFirstOpens(
  origin: VfsOrigin,
  films: ReadonlyMap<MediaKind, FilmFacts>,
  work: string,
): Promise<void> {
  // The async stacks name the engine's caller of each upstream request.
  Error.stackTraceLimit = 60;
  const local = await localReference(origin);
  try {
    for (const film of films.values()) {
      await traceOurs(origin, film, work, (await local.open()).url(film.file));
      await traceRclone(origin, film, work);
    }
  } finally {
    await local.stop();
  }
}
