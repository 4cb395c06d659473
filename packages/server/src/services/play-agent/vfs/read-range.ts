import type { ByteRange } from '../../../platform/http/file-delivery/range.js';
import type { MediaSource } from '../stream/sources.js';

/** Reads a (small) range of a source into one buffer: the index search's reads. */
export async function readRange(
  source: MediaSource,
  range: ByteRange,
  signal: AbortSignal = new AbortController().signal,
): Promise<Buffer> {
  const body = await source.open(range, signal);
  const parts: Buffer[] = [];
  try {
    for (;;) {
      const chunk = await body.read();
      if (chunk === null) break;
      parts.push(Buffer.from(chunk));
      body.release(chunk);
    }
  } finally {
    await body.close();
  }
  return Buffer.concat(parts);
}
