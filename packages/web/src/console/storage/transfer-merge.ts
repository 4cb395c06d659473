import type { Transfer, TransferState } from '@svc/contracts';

/** Live copies of transfers by id, from the event stream or the fallback polls. */
export type LiveTransfers = ReadonlyMap<string, Transfer>;

export function isActiveTransfer(transfer: Pick<Transfer, 'state'>): boolean {
  return transfer.state === 'queued' || transfer.state === 'running';
}

function newer(a: Transfer, b: Transfer): boolean {
  return Date.parse(a.updatedAt) >= Date.parse(b.updatedAt);
}

/** Adds or replaces transfers, keeping whichever copy of each is the most recent; same map when nothing changed. */
export function upsertTransfers(live: LiveTransfers, incoming: readonly Transfer[]): LiveTransfers {
  let next: Map<string, Transfer> | undefined;
  for (const transfer of incoming) {
    const known = (next ?? live).get(transfer.id);
    if (known && (!newer(transfer, known) || JSON.stringify(known) === JSON.stringify(transfer))) continue;
    next ??= new Map(live);
    next.set(transfer.id, transfer);
  }
  return next ?? live;
}

/**
 * One page of the transfer list with the live copies applied: a listed transfer shows its newer live
 * state; on the first page, transfers that started after the list was fetched come first (newest first).
 * With a state filter, the rows are the ones that are in that state now.
 */
export function mergeTransferPage(
  items: readonly Transfer[],
  live: LiveTransfers,
  options: { page: number; state?: TransferState | undefined },
): Transfer[] {
  const listed = new Set(items.map((item) => item.id));
  const oldestListed = items.reduce(
    (oldest, item) => Math.min(oldest, Date.parse(item.createdAt)),
    Number.POSITIVE_INFINITY,
  );
  const fresh =
    options.page === 1
      ? [...live.values()]
          .filter((transfer) => !listed.has(transfer.id))
          .filter((transfer) => items.length === 0 || Date.parse(transfer.createdAt) >= oldestListed)
          .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))
      : [];
  const merged = [
    ...fresh,
    ...items.map((item) => {
      const current = live.get(item.id);
      return current && newer(current, item) ? current : item;
    }),
  ];
  return options.state ? merged.filter((transfer) => transfer.state === options.state) : merged;
}

/** Share of the bytes done, 0–100 (files when there are no bytes to copy); 100 for a finished one. */
export function transferPercent(transfer: Transfer): number {
  if (transfer.state === 'succeeded') return 100;
  if (transfer.bytes.total > 0) return Math.min(100, (transfer.bytes.done / transfer.bytes.total) * 100);
  if (transfer.files.total > 0) return Math.min(100, (transfer.files.done / transfer.files.total) * 100);
  return 0;
}

export function anyRunning(live: LiveTransfers): boolean {
  for (const transfer of live.values()) if (transfer.state === 'running') return true;
  return false;
}
