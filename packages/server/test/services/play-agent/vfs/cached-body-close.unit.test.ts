import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MediaSource } from '../../../../src/services/play-agent/stream/sources.js';
import { CacheStore } from '../../../../src/services/play-agent/vfs/cache-store.js';
import { CachedSource } from '../../../../src/services/play-agent/vfs/cached-source.js';
import { memorySource, patternBytes } from './memory-source.js';

const MiB = 1024 * 1024;
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-close-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A memory source whose ranged opens wait until `let()` is called; counts the bodies still open. */
function gatedSource(content: Buffer): MediaSource & { let: () => void; openBodies: number } {
  const inner = memorySource(content);
  let opened!: () => void;
  const gate = new Promise<void>((resolve) => (opened = resolve));
  const source = Object.assign(Object.create(inner) as MediaSource, { let: opened, openBodies: 0 });
  source.open = async (range, signal) => {
    await gate;
    const body = await inner.open(range, signal);
    source.openBodies++;
    let open = true;
    return {
      read: () => body.read(),
      release: (chunk) => body.release(chunk),
      close: async () => {
        if (open) source.openBodies--;
        open = false;
        await body.close();
      },
    };
  };
  return source;
}

describe('a cached body closed while it reads', () => {
  it('keeps no space reserved and no upstream run open when the close lands while a run opens', async () => {
    const content = patternBytes(512 * 1024);
    const store = await CacheStore.open({ directory: path.join(root, 'store'), capacityBytes: 64 * MiB });
    const upstream = gatedSource(content);
    const source = new CachedSource(upstream, store, {
      sourceId: 'mount:/clip.mkv',
      name: 'clip.mkv',
      writable: () => [{ start: 0, end: content.length - 1 }],
    });
    const body = await source.open({ start: 0, end: content.length - 1 }, new AbortController().signal);
    // The read waits for the upstream run to open; the source closes every body meanwhile
    // (as a short request's end closes the index search's body while readRange still reads it).
    const reading = body.read();
    await source.close();
    upstream.let();
    // As readRange does: read on until the end, then close (again).
    const late = await reading;
    if (late !== null) await body.read();
    await body.close();
    expect(store.usage().inFlightBytes).toBe(0);
    expect(upstream.openBodies).toBe(0);
    expect(late).toBeNull();
  });
});
