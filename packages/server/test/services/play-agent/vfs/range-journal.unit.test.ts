import { mkdtempSync, rmSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseJournal, RangeJournal } from '../../../../src/services/play-agent/vfs/range-journal.js';

const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-journal-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the range journal', () => {
  it('drops a torn last line and damaged lines, and compacts on open', async () => {
    const file = path.join(root, 'ranges');
    const first = await RangeJournal.open(file, 1000);
    expect(first.ranges).toEqual([]);
    await first.journal.append([{ start: 0, end: 99 }]);
    await first.journal.append([
      { start: 100, end: 199 },
      { start: 500, end: 599 },
    ]);
    await first.journal.close();
    const text = await readFile(file, 'utf8');
    // A flipped digit (checksum no longer matches), a line past the file's end, and a line cut by a crash.
    await appendFile(file, text.split('\n')[0]!.replace('0 99', '0 98').replace(/^0 /, '7 ') + '\n');
    await appendFile(file, '900 1500 00000000\n');
    await appendFile(file, '700 79');
    expect(parseJournal(await readFile(file, 'utf8'), 1000)).toEqual([
      { start: 0, end: 199 },
      { start: 500, end: 599 },
    ]);
    const second = await RangeJournal.open(file, 1000);
    expect(second.ranges).toEqual([
      { start: 0, end: 199 },
      { start: 500, end: 599 },
    ]);
    // Rewritten compacted: the next append starts on a fresh line.
    await second.journal.append([{ start: 700, end: 799 }]);
    await second.journal.close();
    expect(parseJournal(await readFile(file, 'utf8'), 1000)).toEqual([
      { start: 0, end: 199 },
      { start: 500, end: 599 },
      { start: 700, end: 799 },
    ]);
  });
});
