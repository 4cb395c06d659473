import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/platform/cache/index.js';
import { ScanRunner } from '../../../src/services/media/scan/scan-runner.js';
import { ScanAborted } from '../../../src/services/media/scan/scan-state.js';
import type { ScanRow, ScansRepository } from '../../../src/services/media/scan/scans.repository.js';
import { quietLogger } from '../../support/databases.js';
import { waitUntil } from '../../support/wait.js';

/** A queue of scans in memory with the calls the runner makes. */
function fakeQueue(libraries: string[]) {
  const queued = libraries.map(
    (libraryId, index) => ({ id: `scan-${index}`, library_id: libraryId }) as ScanRow,
  );
  const calls: string[] = [];
  const scans = {
    claimNext: async (_now: Date, skip: ReadonlySet<string>) => {
      const index = queued.findIndex((scan) => !skip.has(scan.library_id));
      if (index < 0) return undefined;
      const [scan] = queued.splice(index, 1);
      calls.push(`claim ${scan!.id}`);
      return scan;
    },
    requeue: async (id: string) => {
      calls.push(`requeue ${id}`);
    },
    finish: async (id: string, state: string, error: string | null) => {
      calls.push(`finish ${id} ${state} ${error}`);
    },
    heartbeat: async () => {},
    failStale: async () => ['scan-dead'],
  };
  return { scans: scans as unknown as ScansRepository, calls, queued };
}

describe('the scan runner', () => {
  it('runs queued scans in the background, two at a time and one per library', async () => {
    const queue = fakeQueue(['a', 'a', 'b', 'c']);
    const running = new Set<string>();
    let most = 0;
    const ran: string[] = [];
    const runner = new ScanRunner({
      scans: queue.scans,
      clock: systemClock,
      logger: quietLogger(),
      execute: async (scan) => {
        running.add(scan.library_id);
        most = Math.max(most, running.size);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running.delete(scan.library_id);
        ran.push(scan.id);
      },
    });
    runner.start();
    await waitUntil(() => ran.length === 4);
    expect(most).toBe(2);
    expect(ran.sort()).toEqual(['scan-0', 'scan-1', 'scan-2', 'scan-3']);
    await runner.stop();
  });

  it('records a failure, and puts scans interrupted by a shutdown back in the queue', async () => {
    const queue = fakeQueue(['a', 'b']);
    const runner = new ScanRunner({
      scans: queue.scans,
      clock: systemClock,
      logger: quietLogger(),
      execute: async (scan, signal) => {
        if (scan.library_id === 'a') throw new Error('walk exploded');
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
        throw new ScanAborted('stopping');
      },
    });
    runner.start();
    await waitUntil(
      () => queue.calls.includes('finish scan-0 failed walk exploded') && runner.runningIds().length === 1,
    );
    await runner.stop();
    expect(queue.calls).toContain('requeue scan-1');
    await runner.sweep();
    expect(queue.calls.filter((call) => call.startsWith('claim'))).toHaveLength(2);
  });
});
