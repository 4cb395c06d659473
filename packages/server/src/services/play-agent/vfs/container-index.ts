import type { ByteRange } from '../../../platform/http/file-delivery/range.js';

/**
 * Where a container keeps the index a player reads before it can start (docs/vfs-cache.md,
 * "SMART_STARTUP"): MP4's `moov` box (at the head after faststart, else usually at the end) and
 * Matroska's Cues and Tags (positions from the SeekHead). Found with a few small ranged reads, so a remote
 * file costs little; anything unexpected ends the search with what was found (the caller falls back to a
 * basic tail).
 */

export type ReadAt = (range: ByteRange) => Promise<Buffer>;

export type ContainerKind = 'mp4' | 'mkv' | 'unknown';

export interface ContainerIndex {
  container: ContainerKind;
  /** Byte ranges of the index elements found (empty when none). */
  index: ByteRange[];
}

/** Bytes read first: the MP4 `ftyp` or the EBML header, Segment header and SeekHead. */
export const HEAD_PROBE_BYTES = 64 * 1024;
const MAX_BOXES = 256;

export function detectContainer(head: Buffer): ContainerKind {
  if (head.length >= 8 && head.toString('latin1', 4, 8) === 'ftyp') return 'mp4';
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) return 'mkv';
  return 'unknown';
}

export async function findContainerIndex(readAt: ReadAt, size: number): Promise<ContainerIndex> {
  if (size < 16) return { container: 'unknown', index: [] };
  const head = await readAt({ start: 0, end: Math.min(size, HEAD_PROBE_BYTES) - 1 });
  const container = detectContainer(head);
  try {
    if (container === 'mp4') return { container, index: await findMoov(readAt, size) };
    if (container === 'mkv') return { container, index: await findMatroskaIndex(readAt, head, size) };
  } catch {
    // A damaged or unusual file: no index found, the basic tail is kept instead.
  }
  return { container, index: [] };
}

/** Walks the top-level boxes from the head (one 16-byte read each) until `moov`. */
async function findMoov(readAt: ReadAt, size: number): Promise<ByteRange[]> {
  let offset = 0;
  for (let boxes = 0; boxes < MAX_BOXES && offset + 8 <= size; boxes++) {
    const header = await readAt({ start: offset, end: Math.min(size, offset + 16) - 1 });
    let length = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    if (length === 1) {
      if (header.length < 16) return [];
      length = Number(header.readBigUInt64BE(8));
    } else if (length === 0) {
      length = size - offset;
    }
    if (length < 8) return [];
    if (type === 'moov') return [{ start: offset, end: Math.min(size, offset + length) - 1 }];
    offset += length;
  }
  return [];
}

// --- Matroska (EBML) ----------------------------------------------------------------------------------

const SEGMENT = 0x18538067;
const SEEK_HEAD = 0x114d9b74;
const SEEK = 0x4dbb;
const SEEK_ID = 0x53ab;
const SEEK_POSITION = 0x53ac;
const CUES = 0x1c53bb6b;
const TAGS = 0x1254c367;

interface Vint {
  value: number;
  length: number;
  /** All value bits set: an unknown size. */
  unknown: boolean;
}

/** An EBML variable-size integer; `keepMarker` for element ids (they are written with their marker bit). */
export function readVint(buffer: Buffer, offset: number, keepMarker: boolean): Vint | null {
  const first = buffer[offset];
  if (first === undefined || first === 0) return null;
  const length = Math.clz32(first) - 23;
  if (length > 8 || offset + length > buffer.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let index = 1; index < length; index++) {
    const byte = buffer[offset + index] ?? 0;
    value = value * 256 + byte;
    if (byte !== 0xff) allOnes = false;
  }
  return { value, length, unknown: !keepMarker && allOnes };
}

interface Element {
  id: number;
  /** Offset of the element's data, and its size (null when unknown). */
  dataStart: number;
  size: number | null;
}

function readElement(buffer: Buffer, offset: number): Element | null {
  const id = readVint(buffer, offset, true);
  if (!id) return null;
  const size = readVint(buffer, offset + id.length, false);
  if (!size) return null;
  return {
    id: id.value,
    dataStart: offset + id.length + size.length,
    size: size.unknown ? null : size.value,
  };
}

function readUint(buffer: Buffer, start: number, length: number): number {
  let value = 0;
  for (let index = 0; index < length; index++) value = value * 256 + (buffer[start + index] ?? 0);
  return value;
}

/** The Seek entries of a SeekHead's data: element id → position relative to the segment data. */
function parseSeekHead(buffer: Buffer, start: number, end: number): Map<number, number[]> {
  const seeks = new Map<number, number[]>();
  let offset = start;
  while (offset < end) {
    const seek = readElement(buffer, offset);
    if (!seek || seek.size === null) break;
    if (seek.id === SEEK) {
      let id: number | null = null;
      let position: number | null = null;
      let inner = seek.dataStart;
      while (inner < seek.dataStart + seek.size) {
        const child = readElement(buffer, inner);
        if (!child || child.size === null) break;
        if (child.id === SEEK_ID) id = readUint(buffer, child.dataStart, child.size);
        if (child.id === SEEK_POSITION) position = readUint(buffer, child.dataStart, child.size);
        inner = child.dataStart + child.size;
      }
      if (id !== null && position !== null) seeks.set(id, [...(seeks.get(id) ?? []), position]);
    }
    offset = seek.dataStart + seek.size;
  }
  return seeks;
}

async function elementRangeAt(readAt: ReadAt, offset: number, size: number): Promise<ByteRange | null> {
  if (offset >= size) return null;
  const header = await readAt({ start: offset, end: Math.min(size, offset + 16) - 1 });
  const element = readElement(header, 0);
  if (!element || element.size === null) return null;
  return { start: offset, end: Math.min(size, offset + element.dataStart + element.size) - 1 };
}

/** Cues and Tags from the SeekHead at the head (and one further SeekHead it points to). */
async function findMatroskaIndex(readAt: ReadAt, head: Buffer, size: number): Promise<ByteRange[]> {
  const ebml = readElement(head, 0);
  if (!ebml || ebml.size === null) return [];
  const segment = readElement(head, ebml.dataStart + ebml.size);
  if (!segment || segment.id !== SEGMENT) return [];
  const segmentData = segment.dataStart;
  // The first level-1 elements, up to the first cluster, lie in the head read.
  let offset = segmentData;
  let seeks = new Map<number, number[]>();
  while (offset < head.length) {
    const element = readElement(head, offset);
    if (!element || element.size === null) break;
    if (element.id === SEEK_HEAD) {
      const end = element.dataStart + element.size;
      if (end > head.length) break;
      seeks = parseSeekHead(head, element.dataStart, end);
      break;
    }
    offset = element.dataStart + element.size;
  }
  const more = seeks.get(SEEK_HEAD) ?? [];
  for (const position of more) {
    const range = await elementRangeAt(readAt, segmentData + position, size);
    if (!range || range.end - range.start > 1024 * 1024) continue;
    const bytes = await readAt(range);
    const element = readElement(bytes, 0);
    if (!element || element.size === null) continue;
    for (const [id, positions] of parseSeekHead(bytes, element.dataStart, element.dataStart + element.size)) {
      seeks.set(id, [...(seeks.get(id) ?? []), ...positions]);
    }
  }
  const ranges: ByteRange[] = [];
  for (const id of [CUES, TAGS]) {
    for (const position of new Set(seeks.get(id) ?? [])) {
      const range = await elementRangeAt(readAt, segmentData + position, size);
      if (range) ranges.push(range);
    }
  }
  return ranges;
}
