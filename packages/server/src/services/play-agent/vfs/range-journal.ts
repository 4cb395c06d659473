import { open, readFile, rename, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import type { ByteRange } from '../../../platform/http/file-delivery/range.js';
import { normalize, type RangeSet } from './range-set.js';

/**
 * The recorded (verified) byte ranges of one cache entry: an append-only text file of lines
 * `<start> <end> <crc32 hex>\n`. A line is appended only after the bytes it names were written and
 * flushed to the data file (cache-entry.ts), so after any crash the journal names only good bytes. A line
 * torn by a crash fails its checksum (or lacks its newline) and is dropped on open; the journal is then
 * rewritten compacted (temporary file + rename), so a later append never continues a torn line.
 */

function line(range: ByteRange): string {
  const text = `${range.start} ${range.end}`;
  return `${text} ${crc32(text).toString(16).padStart(8, '0')}\n`;
}

const LINE = /^([0-9]{1,15}) ([0-9]{1,15}) ([0-9a-f]{8})$/;

/** Parses a journal's text; keeps only intact lines that lie inside a file of `size` bytes. */
export function parseJournal(text: string, size: number): ByteRange[] {
  const ranges: ByteRange[] = [];
  const lines = text.split('\n');
  // The part after the last newline is an unfinished line: never trusted.
  lines.pop();
  for (const entry of lines) {
    const match = LINE.exec(entry);
    if (!match) continue;
    const [, startText, endText, checksum] = match;
    if (crc32(`${startText} ${endText}`).toString(16).padStart(8, '0') !== checksum) continue;
    const start = Number(startText);
    const end = Number(endText);
    if (start > end || end >= size) continue;
    ranges.push({ start, end });
  }
  return normalize(ranges);
}

export class RangeJournal {
  private constructor(
    private readonly file: string,
    private handle: FileHandle,
  ) {}

  /** Reads the journal (missing = empty), rewrites it compacted, and opens it for appending. */
  static async open(file: string, size: number): Promise<{ journal: RangeJournal; ranges: ByteRange[] }> {
    let text = '';
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const ranges = parseJournal(text, size);
    const compacted = ranges.map(line).join('');
    if (compacted !== text) await RangeJournal.replace(file, ranges);
    const handle = await open(file, 'a');
    return { journal: new RangeJournal(file, handle), ranges };
  }

  /** Writes a journal holding exactly `ranges`, atomically. */
  private static async replace(file: string, ranges: RangeSet): Promise<void> {
    const temporary = `${file}.tmp`;
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(ranges.map(line).join(''));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  }

  /** Records ranges whose bytes are already flushed. */
  async append(ranges: readonly ByteRange[]): Promise<void> {
    if (ranges.length === 0) return;
    await this.handle.write(ranges.map(line).join(''));
  }

  /** Rewrites the journal as the given (normalized) set: keeps it short after many appends. */
  async compact(ranges: RangeSet): Promise<void> {
    await this.handle.close();
    await RangeJournal.replace(this.file, ranges);
    this.handle = await open(this.file, 'a');
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }
}
