import type { MediaBody, MediaSource } from '../stream/sources.js';
import { SourceError } from '../stream/sources.js';

/** The drive bytes one probe may still read (the setting "added drive traffic cap"). */
export class ByteBudget {
  private read = 0;

  constructor(readonly capBytes: number) {}

  get used(): number {
    return this.read;
  }

  get remaining(): number {
    return Math.max(0, this.capBytes - this.read);
  }

  take(bytes: number): void {
    this.read += bytes;
  }
}

/**
 * A source whose reads stop at the budget: each range asked of the upstream is cut to what is left, and
 * the bytes handed on are counted across every range the probe opens. A probe that wants more sees its
 * read end early (ffprobe then reports what it found, or fails and the file waits for its cooldown).
 */
export function cappedSource(source: MediaSource, budget: ByteBudget): MediaSource {
  return {
    kind: source.kind,
    facts: (signal) => source.facts(signal),
    close: () => source.close(),
    async open(range, signal): Promise<MediaBody> {
      if (budget.remaining === 0) {
        throw new SourceError(502, 'UPSTREAM_UNAVAILABLE', 'probe traffic cap reached', 'upstream');
      }
      const end = Math.min(range.end, range.start + budget.remaining - 1);
      const body = await source.open({ start: range.start, end }, signal);
      // A chunk handed on cut to the budget is released to the body as the chunk it read.
      const originals = new WeakMap<Buffer, Buffer>();
      return {
        async read() {
          if (budget.remaining === 0) return null;
          const chunk = await body.read();
          if (chunk === null) return null;
          const allowed = Math.min(chunk.length, budget.remaining);
          budget.take(allowed);
          if (allowed === chunk.length) return chunk;
          const cut = chunk.subarray(0, allowed);
          originals.set(cut, chunk);
          return cut;
        },
        release(chunk) {
          body.release(originals.get(chunk) ?? chunk);
        },
        close: () => body.close(),
      };
    },
  };
}
