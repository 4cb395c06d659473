import { describe, expect, it } from 'vitest';
import type { ScanStatus } from '@svc/contracts';
import {
  ACTIVE_POLL_MS,
  PENDING_POLL_MS,
  isScanActive,
  newerScan,
  scanOutcome,
  scanPercent,
  scanPollInterval,
  watchEnded,
} from './scan-progress.js';

function scan(patch: Partial<ScanStatus> = {}): ScanStatus {
  return {
    id: 's1',
    libraryId: 'l1',
    mode: 'incremental',
    trigger: 'manual',
    scope: null,
    state: 'running',
    phase: 'processing',
    filesSeen: 0,
    filesTotal: 0,
    filesSkipped: 0,
    itemsAdded: 0,
    itemsUpdated: 0,
    itemsRemoved: 0,
    probeTools: [],
    error: null,
    createdAt: '2024-01-01T00:00:00.000Z',
    startedAt: null,
    finishedAt: null,
    ...patch,
  };
}

describe('scan progress', () => {
  it('knows active scans', () => {
    expect(isScanActive(scan({ state: 'queued' }))).toBe(true);
    expect(isScanActive(scan())).toBe(true);
    expect(isScanActive(scan({ state: 'succeeded' }))).toBe(false);
    expect(isScanActive(null)).toBe(false);
  });

  it('computes the share of videos looked at while processing', () => {
    expect(scanPercent(scan({ filesSeen: 10, filesTotal: 40 }))).toBe(25);
    expect(scanPercent(scan({ filesSeen: 50, filesTotal: 40 }))).toBe(100);
    expect(scanPercent(scan({ filesSeen: 0, filesTotal: 0 }))).toBeNull();
  });

  it('cannot tell while queued or walking, and is at the end when removing or finished', () => {
    expect(scanPercent(scan({ state: 'queued', phase: 'queued' }))).toBeNull();
    expect(scanPercent(scan({ phase: 'walking', filesTotal: 3 }))).toBeNull();
    expect(scanPercent(scan({ phase: 'removing' }))).toBe(100);
    expect(scanPercent(scan({ state: 'failed', phase: 'walking' }))).toBe(100);
  });

  it('tells the outcome', () => {
    expect(scanOutcome(scan())).toBe('active');
    expect(scanOutcome(scan({ state: 'succeeded' }))).toBe('succeeded');
    expect(scanOutcome(scan({ state: 'succeeded', error: 'provider refused the key' }))).toBe('problems');
    expect(scanOutcome(scan({ state: 'failed', error: 'x' }))).toBe('failed');
    expect(scanOutcome(scan({ state: 'cancelled' }))).toBe('cancelled');
  });

  it('polls every second while a scan is active', () => {
    expect(scanPollInterval({ scan: scan(), pendingTasks: 1 })).toBe(ACTIVE_POLL_MS);
    expect(scanPollInterval({ scan: scan({ state: 'succeeded' }), pendingTasks: 2 })).toBe(PENDING_POLL_MS);
    expect(scanPollInterval({ scan: scan({ state: 'succeeded' }), pendingTasks: 0 })).toBe(false);
    expect(scanPollInterval({ scan: null, pendingTasks: 0 })).toBe(false);
  });

  it('ends a watch only with an answer fetched after it began', () => {
    const finished = { scan: scan({ state: 'succeeded' }), pendingTasks: 0 };
    expect(watchEnded(finished, 900, 1000)).toBe(false);
    expect(watchEnded(finished, 1100, 1000)).toBe(true);
    expect(watchEnded({ scan: scan(), pendingTasks: 1 }, 1100, 1000)).toBe(false);
    expect(watchEnded(undefined, 1100, 1000)).toBe(false);
  });

  it('picks the more recent scan', () => {
    const older = scan({ id: 'a', createdAt: '2024-01-01T00:00:00.000Z', state: 'succeeded' });
    const newer = scan({ id: 'b', createdAt: '2024-01-02T00:00:00.000Z' });
    expect(newerScan(older, newer)).toBe(newer);
    expect(newerScan(newer, older)).toBe(newer);
    expect(newerScan(null, older)).toBe(older);
    expect(newerScan(undefined, null)).toBeNull();
    const running = scan({ id: 'a' });
    const finished = scan({ id: 'a', state: 'succeeded', finishedAt: '2024-01-01T00:01:00.000Z' });
    expect(newerScan(running, finished)).toBe(finished);
    expect(newerScan(finished, running)).toBe(finished);
  });
});
