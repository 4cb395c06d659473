import { describe, expect, it } from 'vitest';
import type { Transfer } from '@svc/contracts';
import {
  anyRunning,
  isActiveTransfer,
  mergeTransferPage,
  transferPercent,
  upsertTransfers,
} from './transfer-merge.js';

function transfer(id: string, patch: Partial<Transfer> = {}): Transfer {
  return {
    id,
    kind: 'copy',
    state: 'running',
    source: { mountId: 'm', path: `a/${id}` },
    target: { mountId: 'm', path: `b/${id}` },
    overwrite: false,
    bytes: { done: 0, total: 100 },
    files: { done: 0, total: 1 },
    rate: 0,
    error: null,
    attempt: 1,
    createdBy: 'admin',
    createdAt: '2024-01-01T00:00:10.000Z',
    startedAt: null,
    finishedAt: null,
    updatedAt: '2024-01-01T00:00:10.000Z',
    ...patch,
  };
}

describe('transfer merging', () => {
  it('keeps the most recent copy of each transfer', () => {
    const first = upsertTransfers(new Map(), [transfer('a', { bytes: { done: 10, total: 100 } })]);
    const later = transfer('a', { bytes: { done: 50, total: 100 }, updatedAt: '2024-01-01T00:00:11.000Z' });
    const second = upsertTransfers(first, [later]);
    expect(second.get('a')?.bytes.done).toBe(50);
    // An older copy (a poll answered after an event) does not go back in time.
    const stale = upsertTransfers(second, [transfer('a', { bytes: { done: 20, total: 100 } })]);
    expect(stale.get('a')?.bytes.done).toBe(50);
    expect(stale).toBe(second);
  });

  it('answers the same map when nothing changed', () => {
    const live = upsertTransfers(new Map(), [transfer('a')]);
    expect(upsertTransfers(live, [transfer('a')])).toBe(live);
  });

  it('applies live state to the listed rows and puts new transfers first on page 1', () => {
    const listed = [transfer('old', { createdAt: '2024-01-01T00:00:05.000Z' })];
    const live = upsertTransfers(new Map(), [
      transfer('old', { state: 'succeeded', updatedAt: '2024-01-01T00:00:20.000Z' }),
      transfer('new', { createdAt: '2024-01-01T00:00:30.000Z' }),
    ]);
    const page1 = mergeTransferPage(listed, live, { page: 1 });
    expect(page1.map((row) => [row.id, row.state])).toEqual([
      ['new', 'running'],
      ['old', 'succeeded'],
    ]);
    expect(mergeTransferPage(listed, live, { page: 2 }).map((row) => row.id)).toEqual(['old']);
  });

  it('does not pull older transfers from other pages onto page 1', () => {
    const listed = [transfer('recent', { createdAt: '2024-01-01T00:01:00.000Z' })];
    const live = upsertTransfers(new Map(), [transfer('ancient', { createdAt: '2024-01-01T00:00:00.000Z' })]);
    expect(mergeTransferPage(listed, live, { page: 1 }).map((row) => row.id)).toEqual(['recent']);
  });

  it('filters by the current state', () => {
    const live = upsertTransfers(new Map(), [transfer('a', { state: 'failed' }), transfer('b')]);
    expect(mergeTransferPage([], live, { page: 1, state: 'failed' }).map((row) => row.id)).toEqual(['a']);
  });

  it('computes progress from bytes, else files', () => {
    expect(transferPercent(transfer('a', { bytes: { done: 25, total: 100 } }))).toBe(25);
    expect(
      transferPercent(transfer('a', { bytes: { done: 0, total: 0 }, files: { done: 1, total: 4 } })),
    ).toBe(25);
    expect(transferPercent(transfer('a', { state: 'succeeded', bytes: { done: 0, total: 0 } }))).toBe(100);
    expect(
      transferPercent(transfer('a', { bytes: { done: 0, total: 0 }, files: { done: 0, total: 0 } })),
    ).toBe(0);
  });

  it('tells active and running transfers', () => {
    expect(isActiveTransfer({ state: 'queued' })).toBe(true);
    expect(isActiveTransfer({ state: 'failed' })).toBe(false);
    expect(anyRunning(upsertTransfers(new Map(), [transfer('a', { state: 'queued' })]))).toBe(false);
    expect(anyRunning(upsertTransfers(new Map(), [transfer('a')]))).toBe(true);
  });
});
