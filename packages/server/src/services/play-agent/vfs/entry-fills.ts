import type { ByteRange } from '../../../platform/http/file-delivery/range.js';

/**
 * The bytes of one entry being fetched right now, by a fill (range-fill.ts) or by a reader's announced
 * upstream run (READ_AHEAD), so that nobody fetches them twice: a reader that needs bytes a fill is about
 * to record waits for it, and one that needs bytes far ahead of the fill's progress cuts the fill short
 * there and fetches them itself (a seek must not wait for a large chunk to arrive).
 */

/** A reader waits for a fill whose progress is at most this far before the byte it needs. */
export const FILL_WAIT_BYTES = 2 * 1024 * 1024;

export class Fill {
  /** The next byte the fill will write. */
  progress: number;
  readonly done: Promise<void>;
  private resolve = () => undefined as void;

  constructor(
    readonly range: ByteRange,
    /** A fill may be cut short (its end moved back); a reader's run may not. */
    readonly cuttable: boolean,
  ) {
    this.progress = range.start;
    this.done = new Promise<void>((resolve) => (this.resolve = resolve));
  }

  /** Moves the end back to `end` (the fill stops there); only forward of its progress. */
  cut(end: number): void {
    if (this.cuttable && end >= this.progress - 1 && end < this.range.end) this.range.end = end;
  }

  end(): void {
    this.resolve();
  }
}

export class EntryFills {
  private readonly active = new Set<Fill>();
  /** Bytes a reader's own run is fetching at its client's pace (claim()). */
  private readonly claims = new Set<ByteRange>();
  private waiters: (() => void)[] = [];

  /** Announces that `range` is being fetched; call `finish()` on the result when it ends. */
  begin(range: ByteRange, cuttable: boolean): Fill & { finish: () => void } {
    const fill = new Fill({ ...range }, cuttable);
    this.active.add(fill);
    return Object.assign(fill, {
      finish: () => {
        this.active.delete(fill);
        fill.end();
        this.wake();
      },
    });
  }

  /**
   * Notes that a reader's upstream run is fetching `range` (SMART_STARTUP): fills skip those bytes, but
   * other readers do not wait for them, since the run goes at the pace of a client that may stall.
   */
  claim(range: ByteRange): { finish: () => void } {
    const claimed = { ...range };
    this.claims.add(claimed);
    return { finish: () => this.claims.delete(claimed) };
  }

  /** Whether another reader's run is fetching the byte at `position` (claim()). */
  claimedAt(position: number): boolean {
    for (const claim of this.claims) {
      if (claim.start <= position && position <= claim.end) return true;
    }
    return false;
  }

  /** The fill that is fetching the byte at `position`, if any. */
  at(position: number): Fill | undefined {
    for (const fill of this.active) {
      if (fill.range.start <= position && position <= fill.range.end) return fill;
    }
    return undefined;
  }

  /** Where the first fill inside `range` (after its first byte) starts, null when none is. */
  nextStart(range: ByteRange): number | null {
    let first: number | null = null;
    for (const { range: fill } of this.active) {
      const start = Math.max(fill.start, range.start + 1);
      if (start <= fill.end && start <= range.end && (first === null || start < first)) first = start;
    }
    return first;
  }

  /** Bytes being fetched by fills and claimed runs: what a new fill must not fetch again. */
  get ranges(): ByteRange[] {
    return [...[...this.active].map((fill) => fill.range), ...this.claims].map((range) => ({ ...range }));
  }

  /** Resolves at the next recorded progress of the entry (a flush that recorded bytes, a fill's end). */
  progressed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
