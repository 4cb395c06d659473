/**
 * Space accounting of the cache disk: bytes written (by entries) plus bytes in flight (reserved by readers
 * that are fetching bytes they will write). A reservation is taken before a fetch and consumed as the
 * bytes are written, so concurrent fills never overrun the capacity together.
 */
export class SpaceLedger {
  used = 0;
  inFlight = 0;

  constructor(public capacity: number) {}

  get free(): number {
    return Math.max(0, this.capacity - this.used - this.inFlight);
  }

  /** Reserves `bytes` if they fit, else null (the caller may evict and try again). */
  tryReserve(bytes: number): Reservation | null {
    if (bytes <= 0) return new Reservation(this, 0);
    if (bytes > this.free) return null;
    this.inFlight += bytes;
    return new Reservation(this, bytes);
  }

  /** Bytes that left the disk (an entry removed or found smaller). */
  forget(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  /** Bytes found on disk without a reservation (the scan at open). */
  account(bytes: number): void {
    this.used += bytes;
  }
}

export class Reservation {
  constructor(
    private readonly ledger: SpaceLedger,
    private left: number,
  ) {}

  get remaining(): number {
    return this.left;
  }

  /** Turns reserved bytes into written bytes; false (nothing taken) when the reservation is too small. */
  consume(bytes: number): boolean {
    if (bytes > this.left) return false;
    this.left -= bytes;
    this.ledger.inFlight -= bytes;
    this.ledger.used += bytes;
    return true;
  }

  /** Gives back what was not written. Idempotent. */
  release(): void {
    this.ledger.inFlight -= this.left;
    this.left = 0;
  }
}
