import { describe, expect, it } from 'vitest';
import {
  clientLabel,
  elapsedSeconds,
  mediaTitle,
  mountSpace,
  nodeNames,
  nodeStatusColor,
  playbackPercent,
  SETUP_STEP_PAGES,
  setupProgress,
  sortInstances,
  storageTotals,
} from './dashboard-view.js';

describe('playbackPercent', () => {
  it('is the position as a share of the runtime', () => {
    expect(playbackPercent(30, 120)).toBe(25);
    expect(playbackPercent(0, 120)).toBe(0);
  });

  it('is unknown without a runtime and capped at 100', () => {
    expect(playbackPercent(30, null)).toBeNull();
    expect(playbackPercent(30, 0)).toBeNull();
    expect(playbackPercent(null, 100)).toBeNull();
    expect(playbackPercent(500, 100)).toBe(100);
  });
});

describe('session labels', () => {
  it('names episodes with their series', () => {
    expect(mediaTitle({ mediaName: 'Pilot', seriesName: 'Show' })).toBe('Show · Pilot');
    expect(mediaTitle({ mediaName: 'Film', seriesName: null })).toBe('Film');
  });

  it('joins client and device, leaving out empty parts', () => {
    expect(clientLabel({ client: 'Emby Web', deviceName: 'Firefox' })).toBe('Emby Web · Firefox');
    expect(clientLabel({ client: 'Infuse', deviceName: ' ' })).toBe('Infuse');
    expect(clientLabel({ client: '', deviceName: '' })).toBe('—');
  });

  it('counts elapsed seconds, never negative', () => {
    const start = '2025-01-01T00:00:00.000Z';
    expect(elapsedSeconds(start, Date.parse(start) + 90_500)).toBe(90);
    expect(elapsedSeconds(start, Date.parse(start) - 5_000)).toBe(0);
    expect(elapsedSeconds('not a date', 0)).toBe(0);
  });

  it('maps node ids to names', () => {
    expect(nodeNames([{ nodeId: 'node-a', name: 'Alpha' }]).get('node-a')).toBe('Alpha');
  });
});

describe('storage', () => {
  it('computes the used share and colour of a mount', () => {
    expect(mountSpace({ status: 'ok', totalBytes: 1000, usedBytes: 500 })).toEqual({
      percent: 50,
      color: 'blue',
    });
    expect(mountSpace({ status: 'ok', totalBytes: 1000, usedBytes: 850 }).color).toBe('orange');
    expect(mountSpace({ status: 'ok', totalBytes: 1000, usedBytes: 990 }).color).toBe('red');
  });

  it('has no share without sizes (remote drives) or when unavailable', () => {
    expect(mountSpace({ status: 'ok', totalBytes: null, usedBytes: null })).toEqual({
      percent: null,
      color: 'gray',
    });
    expect(mountSpace({ status: 'unavailable', totalBytes: 10, usedBytes: 5 }).percent).toBeNull();
  });

  it('sums only mounts that report sizes', () => {
    expect(
      storageTotals([
        { status: 'ok', totalBytes: 1000, usedBytes: 400 },
        { status: 'ok', totalBytes: null, usedBytes: null },
        { status: 'unavailable', totalBytes: null, usedBytes: null },
        { status: 'ok', totalBytes: 500, usedBytes: 100 },
      ]),
    ).toEqual({ used: 500, total: 1500, reported: 2 });
  });
});

describe('health', () => {
  it('lists instances that are down first', () => {
    const sorted = sortInstances([
      { service: 'svc-user', instanceId: 'b', status: 'up' },
      { service: 'svc-media', instanceId: 'a', status: 'up' },
      { service: 'svc-user', instanceId: 'a', status: 'down' },
    ] as const);
    expect(sorted.map((instance) => `${instance.service}/${instance.instanceId}`)).toEqual([
      'svc-user/a',
      'svc-media/a',
      'svc-user/b',
    ]);
  });

  it('colours node states', () => {
    expect(nodeStatusColor('ONLINE')).toBe('green');
    expect(nodeStatusColor('offline')).toBe('red');
    expect(nodeStatusColor('PENDING')).toBe('yellow');
  });
});

describe('first-run checklist', () => {
  const steps = (states: string[]) =>
    (['storage', 'library', 'scan', 'playback', 'users'] as const).map((step, index) => ({
      step,
      state: states[index] as 'done' | 'todo' | 'unknown',
    }));

  it('shows until every step is done, counting the done ones', () => {
    expect(setupProgress(undefined)).toEqual({ show: false, done: 0 });
    expect(
      setupProgress({ steps: steps(['done', 'todo', 'todo', 'unknown', 'done']), complete: false }),
    ).toEqual({ show: true, done: 2 });
    expect(setupProgress({ steps: steps(['done', 'done', 'done', 'done', 'done']), complete: true })).toEqual(
      {
        show: false,
        done: 5,
      },
    );
  });

  it('links each step to the console page that does it', () => {
    expect(SETUP_STEP_PAGES).toEqual({
      storage: '/console/storage',
      library: '/console/libraries',
      scan: '/console/libraries',
      playback: '/console/nodes',
      users: '/console/users',
    });
  });
});
