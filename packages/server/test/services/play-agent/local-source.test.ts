import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLocalFile } from '../../../src/services/play-agent/stream/sources.js';

describe('opening a co-located file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-local-source-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("accepts the storage node's mtime whether it was rounded or truncated to milliseconds", async () => {
    const file = path.join(dir, 'movie.mkv');
    writeFileSync(file, 'x'.repeat(100));
    // 0.7 ms past a whole millisecond: Node's Stats.mtime rounds up, the fstat check truncates.
    utimesSync(file, 1_700_000_000, 1_700_000_000.0007);
    const { mtimeMs, size } = statSync(file);
    expect(mtimeMs % 1).toBeGreaterThan(0.5);
    for (const mtime of [
      new Date(Math.round(mtimeMs)),
      new Date(Math.trunc(mtimeMs)),
      statSync(file).mtime.toISOString(),
    ]) {
      const opened = await openLocalFile(file, { size, mtime });
      expect(opened.ok, String(mtime)).toBe(true);
      if (opened.ok) await opened.source.close();
    }
    const changed = await openLocalFile(file, { size, mtime: Math.trunc(mtimeMs) - 2 });
    expect(changed).toMatchObject({ ok: false, reason: 'mismatch' });
    const resized = await openLocalFile(file, { size: size + 1, mtime: Math.trunc(mtimeMs) });
    expect(resized).toMatchObject({ ok: false, reason: 'mismatch' });
    expect(await openLocalFile(path.join(dir, 'gone.mkv'), null)).toMatchObject({
      ok: false,
      reason: 'not-found',
    });
  });
});
