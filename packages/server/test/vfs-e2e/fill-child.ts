// Child process of disk-faults.test.ts: fills a READ_AHEAD cache entry from the WebDAV origin (through
// the storage node and the slow link), says "filling <recorded> <pending>" once at least 1 MiB is
// recorded while further written bytes are not yet recorded, then keeps reading until it is killed.
import { DEFAULT_VFS_CACHE_CONFIG } from '@svc/contracts';
import { CachedSource } from '../../src/services/play-agent/vfs/cached-source.js';
import { VfsCache } from '../../src/services/play-agent/vfs/vfs-cache.js';
import { mediaSource } from './play-source.js';

const [storageUrl, serviceToken, mountId, file, directory] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const cache = await VfsCache.open(
  { ...DEFAULT_VFS_CACHE_CONFIG, enabled: true, mode: 'READ_AHEAD' },
  directory,
);
const source = mediaSource({ storageUrl, serviceToken, mount: { id: mountId } }, cache, file);
if (!(source instanceof CachedSource)) throw new Error('the source is not behind the cache');
const signal = new AbortController().signal;
const { size } = await source.facts(signal);
const entry = await source.cacheEntry(signal);
const body = await source.open({ start: 0, end: size - 1 }, signal);
let told = false;
for (;;) {
  const chunk = await body.read();
  if (chunk === null) break;
  body.release(chunk);
  if (!told && entry.cachedBytes >= 1024 * 1024 && entry.pendingBytes > 0) {
    told = true;
    process.stdout.write(`filling ${entry.cachedBytes} ${entry.pendingBytes}\n`);
  }
}
process.stdout.write('done\n');
