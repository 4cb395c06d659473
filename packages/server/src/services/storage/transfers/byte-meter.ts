import { Transform, type TransformCallback } from 'node:stream';
import type { Budget } from './live-transfer.js';

/** Counts the bytes that pass and holds them back when the transfer's bandwidth limit is reached. */
export class ByteMeter extends Transform {
  constructor(
    private readonly budget: Budget,
    private readonly onBytes: (count: number) => void,
    private readonly signal: AbortSignal,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.budget.bytes += chunk.length;
    this.onBytes(chunk.length);
    const { limit } = this.budget;
    const wait = limit ? this.budget.startedAt + (this.budget.bytes / limit) * 1000 - Date.now() : 0;
    if (wait <= 0) return callback(null, chunk);
    const onAbort = () => {
      clearTimeout(timer);
      callback(this.signal.reason as Error);
    };
    const timer = setTimeout(() => {
      this.signal.removeEventListener('abort', onAbort);
      callback(null, chunk);
    }, wait);
    this.signal.addEventListener('abort', onAbort, { once: true });
  }
}
