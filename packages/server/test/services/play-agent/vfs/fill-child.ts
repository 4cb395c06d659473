// Child process of crash-safety.test.ts: fills a cache entry from an upstream that stalls mid-way, says
// "stalled" once bytes are written but not yet recorded, then waits to be killed with SIGKILL. The upstream
// paces its chunks so that the first flush (after 1 MiB) comes before the last writes: those stay written
// but unrecorded.
import { CacheStore } from '../../../../src/services/play-agent/vfs/cache-store.js';
import { CachedSource } from '../../../../src/services/play-agent/vfs/cached-source.js';
import { memorySource, patternBytes } from './memory-source.js';

const [directory, sizeText, stallText] = process.argv.slice(2);
const size = Number(sizeText);
const content = patternBytes(size, 11);
const store = await CacheStore.open({ directory: directory!, capacityBytes: 1024 * 1024 * 1024 });
const upstream = memorySource(content, { chunkBytes: 64 * 1024, stallAfter: Number(stallText), delayMs: 10 });
const source = new CachedSource(upstream, store, {
  sourceId: 'crash',
  name: 'crash.mkv',
  writable: () => [{ start: 0, end: size - 1 }],
  flushBytes: 1024 * 1024,
});
const body = await source.open({ start: 0, end: size - 1 }, new AbortController().signal);
const entry = await source.cacheEntry(new AbortController().signal);
void (async () => {
  for (;;) {
    const chunk = await body.read();
    if (chunk === null) break;
  }
})();
const timer = setInterval(() => {
  const { served } = upstream;
  const settled =
    entry.cachedBytes > 0 && entry.pendingBytes > 0 && entry.cachedBytes + entry.pendingBytes === served;
  if (served >= Number(stallText) && settled) {
    clearInterval(timer);
    process.stdout.write(`stalled ${entry.cachedBytes} ${entry.pendingBytes}\n`);
  }
}, 5);
