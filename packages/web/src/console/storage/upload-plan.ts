import { UPLOAD_MAX_CHUNK_BYTES, UPLOAD_MIN_CHUNK_BYTES } from '@svc/contracts';

/**
 * Chunk planning of the storage node's chunked uploads (docs/storage.md, "Chunked uploads"): chunk i
 * covers bytes [i·chunkSize, min(size, (i+1)·chunkSize)) and must have exactly that length. The console
 * entrance takes bodies of at most 20 MB, so chunks stay far below that.
 */

/** The console entrance's body limit (bytes). */
export const CONSOLE_BODY_LIMIT = 20 * 1000 * 1000;
/** Chunks the console sends: the node's largest, well below the entrance limit. */
export const DEFAULT_CHUNK_SIZE = UPLOAD_MAX_CHUNK_BYTES;
/** Files up to this size get a SHA-256 that the node checks at completion (hashing reads the file whole). */
export const HASH_LIMIT_BYTES = 256 * 1024 * 1024;

/** A chunk size the node accepts and the entrance lets through. */
export function clampChunkSize(requested: number): number {
  const upper = Math.min(UPLOAD_MAX_CHUNK_BYTES, CONSOLE_BODY_LIMIT - 1);
  if (!Number.isFinite(requested)) return Math.min(DEFAULT_CHUNK_SIZE, upper);
  return Math.min(upper, Math.max(UPLOAD_MIN_CHUNK_BYTES, Math.floor(requested)));
}

export function chunkCount(size: number, chunkSize: number): number {
  return Math.ceil(size / chunkSize);
}

export interface ChunkRange {
  index: number;
  /** First byte. */
  start: number;
  /** One past the last byte. */
  end: number;
}

export function chunkRange(index: number, size: number, chunkSize: number): ChunkRange {
  const start = index * chunkSize;
  return { index, start, end: Math.min(size, start + chunkSize) };
}

/** The chunks still to send, ascending, given the ones the node has (`received` of the upload). */
export function missingChunks(size: number, chunkSize: number, received: readonly number[]): ChunkRange[] {
  const have = new Set(received);
  const out: ChunkRange[] = [];
  for (let index = 0; index < chunkCount(size, chunkSize); index += 1) {
    if (!have.has(index)) out.push(chunkRange(index, size, chunkSize));
  }
  return out;
}

/** Bytes the node holds: the received chunks' lengths. */
export function bytesReceived(size: number, chunkSize: number, received: readonly number[]): number {
  let total = 0;
  for (const index of new Set(received)) {
    const range = chunkRange(index, size, chunkSize);
    total += Math.max(0, range.end - range.start);
  }
  return total;
}

export function uploadPercent(done: number, size: number): number {
  if (size <= 0) return done >= 0 ? 100 : 0;
  return Math.max(0, Math.min(100, (done / size) * 100));
}

/** Whether to compute the file's SHA-256 before uploading (needs Web Crypto, a secure context). */
export function shouldHash(size: number, digestAvailable: boolean): boolean {
  return digestAvailable && size > 0 && size <= HASH_LIMIT_BYTES;
}

export function toHex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}
