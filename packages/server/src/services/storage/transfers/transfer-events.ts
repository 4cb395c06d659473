import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Transfer } from '@svc/contracts';

export type TransferListener = (transfer: Transfer) => void;

/** At most this many progress events per second and transfer; state changes always go out at once. */
export const PROGRESS_EVENTS_PER_SECOND = 4;
export const HEARTBEAT_MS = 15_000;

/**
 * In-process fan-out of transfer changes to the event stream's clients. Progress is throttled per
 * transfer (the latest value is sent at the end of each interval); state changes flush immediately.
 */
export class TransferEvents {
  private readonly listeners = new Set<TransferListener>();
  private readonly lastSent = new Map<string, number>();
  private readonly pending = new Map<string, { timer: NodeJS.Timeout; latest: Transfer }>();
  private readonly intervalMs = 1000 / PROGRESS_EVENTS_PER_SECOND;

  constructor(readonly heartbeatMs = HEARTBEAT_MS) {}

  subscribe(listener: TransferListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  private send(transfer: Transfer): void {
    this.lastSent.set(transfer.id, Date.now());
    for (const listener of this.listeners) {
      try {
        listener(transfer);
      } catch {
        // A broken client must not stop the others.
      }
    }
  }

  progress(transfer: Transfer): void {
    const waiting = this.pending.get(transfer.id);
    if (waiting) {
      waiting.latest = transfer;
      return;
    }
    const since = Date.now() - (this.lastSent.get(transfer.id) ?? 0);
    if (since >= this.intervalMs) {
      this.send(transfer);
      return;
    }
    const entry = {
      latest: transfer,
      timer: setTimeout(() => {
        this.pending.delete(transfer.id);
        this.send(entry.latest);
      }, this.intervalMs - since),
    };
    this.pending.set(transfer.id, entry);
  }

  state(transfer: Transfer): void {
    const waiting = this.pending.get(transfer.id);
    if (waiting) {
      clearTimeout(waiting.timer);
      this.pending.delete(transfer.id);
    }
    this.send(transfer);
    if (transfer.state !== 'queued' && transfer.state !== 'running') this.lastSent.delete(transfer.id);
  }

  close(): void {
    for (const entry of this.pending.values()) clearTimeout(entry.timer);
    this.pending.clear();
    this.listeners.clear();
  }
}

function frame(transfer: Transfer): string {
  return `event: transfer\ndata: ${JSON.stringify(transfer)}\n\n`;
}

/**
 * Answers GET /api/storage/mounts/transfer/events: a text/event-stream with the active transfers first,
 * then an `event: transfer` per change, each written (and so flushed) on its own, and a comment line as
 * heartbeat every 15 s. The subscription and timer end with the client's connection.
 */
export function streamTransferEvents(
  request: FastifyRequest,
  reply: FastifyReply,
  events: TransferEvents,
  active: () => Promise<Transfer[]>,
): void {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  raw.socket?.setNoDelay(true);
  raw.write(': transfer events\nretry: 3000\n\n');
  let closed = false;
  const queue: Transfer[] = [];
  let ready = false;
  const write = (transfer: Transfer) => {
    if (closed) return;
    if (!ready) {
      queue.push(transfer);
      return;
    }
    raw.write(frame(transfer));
  };
  const unsubscribe = events.subscribe(write);
  const heartbeat = setInterval(() => {
    if (!closed) raw.write(': heartbeat\n\n');
  }, events.heartbeatMs);
  const cleanup = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    unsubscribe();
  };
  raw.on('close', cleanup);
  raw.on('error', cleanup);
  // The snapshot of running and queued transfers comes first; changes that happen meanwhile follow it.
  active()
    .then((transfers) => {
      if (closed) return;
      const queuedIds = new Set(queue.map((transfer) => transfer.id));
      for (const transfer of transfers) if (!queuedIds.has(transfer.id)) raw.write(frame(transfer));
      ready = true;
      for (const transfer of queue.splice(0)) raw.write(frame(transfer));
    })
    .catch((error: unknown) => {
      request.log.warn({ err: error }, 'transfer snapshot failed');
      ready = true;
      for (const transfer of queue.splice(0)) raw.write(frame(transfer));
    });
}
