import type { ByteRange } from '../../../../src/platform/http/file-delivery/range.js';
import type {
  MediaBody,
  MediaFacts,
  MediaSource,
} from '../../../../src/services/play-agent/stream/sources.js';
import { readRange } from '../../../../src/services/play-agent/vfs/read-range.js';

/**
 * An upstream over a buffer for the cache tests: answers ranges in chunks of `chunkBytes`, counts the
 * bytes and the opens it served, can pace its chunks, and can stall after a number of bytes (to hold a
 * fill in mid-flight).
 */
export interface MemorySource extends MediaSource {
  served: number;
  opens: ByteRange[];
}

export function memorySource(
  content: Buffer,
  options: { chunkBytes?: number; mtime?: Date; stallAfter?: number; delayMs?: number } = {},
): MemorySource {
  const facts: MediaFacts = { size: content.length, mtime: options.mtime ?? new Date(1_700_000_000_000) };
  const source: MemorySource = {
    kind: 'http',
    served: 0,
    opens: [],
    async facts() {
      return facts;
    },
    async open(range, signal) {
      source.opens.push(range);
      let position = range.start;
      const chunk = options.chunkBytes ?? 64 * 1024;
      const body: MediaBody = {
        async read() {
          signal.throwIfAborted();
          if (position > range.end) return null;
          if (options.stallAfter !== undefined && source.served >= options.stallAfter) {
            await new Promise<never>(() => undefined);
          }
          if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
          const end = Math.min(range.end + 1, position + chunk);
          const bytes = Buffer.from(content.subarray(position, end));
          source.served += bytes.length;
          position = end;
          return bytes;
        },
        release() {},
        async close() {},
      };
      return body;
    },
    async close() {},
  };
  return source;
}

/** Reads a whole range through a source into one buffer. */
export const readAll = readRange;

/** Deterministic pseudo-random bytes (a file whose every offset differs). */
export function patternBytes(size: number, seed = 1): Buffer {
  const bytes = Buffer.alloc(size);
  let state = seed >>> 0 || 1;
  for (let index = 0; index < size; index++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[index] = state & 0xff;
  }
  return bytes;
}

/** A memory source that counts how many of its ranged reads are open at once. */
export function countingSource(
  content: Buffer,
  delayMs = 2,
): MemorySource & { active: number; most: number } {
  const inner = memorySource(content, { chunkBytes: 32 * 1024, delayMs });
  const source = Object.assign(Object.create(inner) as MemorySource, { active: 0, most: 0 });
  source.open = async (range, signal) => {
    const body = await inner.open(range, signal);
    source.active++;
    source.most = Math.max(source.most, source.active);
    let open = true;
    return {
      read: () => body.read(),
      release: (chunk) => body.release(chunk),
      close: async () => {
        if (open) source.active--;
        open = false;
        await body.close();
      },
    };
  };
  return source;
}
