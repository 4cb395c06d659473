import { describe, expect, it } from 'vitest';
import { DiskPressure } from '../../../../src/services/play-agent/vfs/disk-pressure.js';
import { BackgroundDownloads, readAheadRanges } from '../../../../src/services/play-agent/vfs/read-ahead.js';
import { waitUntil } from '../../../support/wait.js';

describe('read-ahead planning', () => {
  it('asks for the missing bytes of the window ahead of the position; 0 is the whole rest', () => {
    const recorded = [{ start: 100, end: 199 }];
    expect(readAheadRanges(50, 200, 1000, recorded)).toEqual([
      { start: 50, end: 99 },
      { start: 200, end: 249 },
    ]);
    expect(readAheadRanges(950, 200, 1000, [])).toEqual([{ start: 950, end: 999 }]);
    expect(readAheadRanges(0, 0, 1000, recorded)).toEqual([
      { start: 0, end: 99 },
      { start: 200, end: 999 },
    ]);
    expect(readAheadRanges(1000, 10, 1000, [])).toEqual([]);
  });

  it('stops at 90 % disk use and resumes only below 80 %', () => {
    let use = 0.5;
    const pressure = new DiskPressure(() => use);
    expect(pressure.paused).toBe(false);
    use = 0.9;
    expect(pressure.paused).toBe(true);
    use = 0.85;
    expect(pressure.paused).toBe(true);
    use = 0.79;
    expect(pressure.paused).toBe(false);
    use = 0.89;
    expect(pressure.paused).toBe(false);
  });
});

function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('background whole-file downloads', () => {
  it('run at most `concurrency` at once, once per key, and -1 is unlimited', async () => {
    const downloads = new BackgroundDownloads(2, new DiskPressure(() => 0), 5);
    const gates = [gate(), gate(), gate(), gate()];
    let active = 0;
    let most = 0;
    gates.forEach((item, index) =>
      downloads.enqueue(`k${index}`, async () => {
        active++;
        most = Math.max(most, active);
        await item.promise;
        active--;
      }),
    );
    expect(downloads.enqueue('k3', async () => undefined)).toBe(false);
    expect(downloads.runningCount).toBe(2);
    expect(downloads.waitingCount).toBe(2);
    gates.forEach((item) => item.open());
    await waitUntil(() => downloads.runningCount === 0 && downloads.waitingCount === 0, 'all downloads');
    expect(most).toBe(2);

    const unlimited = new BackgroundDownloads(-1, new DiskPressure(() => 0), 5);
    const hold = gate();
    for (let index = 0; index < 10; index++) unlimited.enqueue(`u${index}`, () => hold.promise);
    expect(unlimited.runningCount).toBe(10);
    hold.open();
    await waitUntil(() => unlimited.runningCount === 0, 'unlimited downloads');
  });

  it('wait while the disk is under pressure and go on once it is relieved', async () => {
    let use = 0.95;
    const downloads = new BackgroundDownloads(4, new DiskPressure(() => use), 5);
    let started = false;
    downloads.enqueue('a', async () => {
      started = true;
    });
    expect(downloads.waitingCount).toBe(1);
    expect(started).toBe(false);
    use = 0.5;
    await waitUntil(() => started, 'the download to start');

    // A running download pauses between its chunks.
    let chunks = 0;
    const running = downloads.enqueue('b', async ({ whilePaused }) => {
      for (let index = 0; index < 3; index++) {
        await whilePaused();
        chunks++;
        if (index === 0) use = 0.95;
      }
    });
    expect(running).toBe(true);
    await waitUntil(() => chunks === 1, 'the first chunk');
    expect(downloads.runningCount).toBe(1);
    expect(chunks).toBe(1);
    use = 0.1;
    await waitUntil(() => chunks === 3, 'the remaining chunks');
    downloads.stop();
  });
});
