import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CacheStore, entryKey } from '../../../../src/services/play-agent/vfs/cache-store.js';
import { CachedSource } from '../../../../src/services/play-agent/vfs/cached-source.js';
import { parseJournal } from '../../../../src/services/play-agent/vfs/range-journal.js';
import { totalBytes } from '../../../../src/services/play-agent/vfs/range-set.js';
import { memorySource, patternBytes, readAll } from './memory-source.js';

const MiB = 1024 * 1024;
const here = path.dirname(fileURLToPath(import.meta.url));
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-crash-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a node killed mid-fill', () => {
  it('never serves the bytes it wrote but had not recorded', async () => {
    const directory = path.join(root, 'cache');
    const size = 3 * MiB;
    const stallAfter = Math.floor(1.5 * MiB);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(here, 'fill-child.ts'), directory, String(size), String(stallAfter)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const line = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (data: Buffer) => {
        text += data.toString();
        if (text.includes('\n')) resolve(text.trim());
      });
      child.once('exit', (code) => reject(new Error(`the child exited (${code}) before it stalled`)));
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const [, recordedText, pendingText] = line.split(' ');
    const recordedBytes = Number(recordedText);
    const written = recordedBytes + Number(pendingText);
    expect(recordedBytes).toBeGreaterThanOrEqual(MiB);
    expect(written).toBeGreaterThan(recordedBytes);

    const content = patternBytes(size, 11);
    const folder = path.join(directory, entryKey('crash'));
    // The unrecorded bytes are on disk (written, not recorded): exactly what must never be served.
    const data = await readFile(path.join(folder, 'data'));
    expect(data.length).toBe(written);
    expect(data.equals(content.subarray(0, written))).toBe(true);
    const recorded = parseJournal(await readFile(path.join(folder, 'ranges'), 'utf8'), size);
    expect(recorded).toEqual([{ start: 0, end: recordedBytes - 1 }]);

    // After the restart the answer is correct and everything past the recorded range comes from upstream.
    const store = await CacheStore.open({ directory, capacityBytes: 1024 * MiB });
    const upstream = memorySource(content);
    const source = new CachedSource(upstream, store, {
      sourceId: 'crash',
      name: 'crash.mkv',
      writable: () => [{ start: 0, end: size - 1 }],
    });
    expect((await readAll(source, { start: 0, end: size - 1 })).equals(content)).toBe(true);
    expect(upstream.served).toBe(size - totalBytes(recorded));
    await source.close();
  });
});
