import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_METADATA_PROBE_CONFIG,
  METADATA_PROBE_QUEUE_LIMIT,
  type MediaInfo,
  type MetadataProbeConfig,
  type PlaybackFile,
} from '@svc/contracts';
import { ProbeQueue, type ProbeJob } from '../../src/services/play-agent/metadata-probe/probe-queue.js';

const logger = pino({ level: 'silent' });
const INFO: MediaInfo = {
  container: 'matroska',
  durationSeconds: 10,
  bitrate: 1000,
  size: 100,
  streams: [{ index: 0, type: 'video', codec: 'h264', default: true, forced: false }],
};
const file = (path: string, mediaInfo: MediaInfo | null = null): PlaybackFile => ({
  nodeId: 'node-s1',
  mountId: 'm1',
  path,
  size: 100,
  mtime: '2026-01-01T00:00:00.000Z',
  mediaInfo,
  subtitles: [],
});
const job = (id: string, mediaInfo: MediaInfo | null = null): ProbeJob => ({
  itemId: id,
  file: file(`/${id}.mkv`, mediaInfo),
});

/** A probe the test finishes by hand. */
function manualProbes() {
  const pending: { job: ProbeJob; cap: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  const probe = (probeJob: ProbeJob, cap: number) =>
    new Promise<MediaInfo>((resolve, reject) =>
      pending.push({ job: probeJob, cap, resolve: () => resolve(INFO), reject }),
    );
  return { pending, probe };
}

describe('metadata probing during playback', () => {
  let stored: string[];
  let usable: boolean;
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00Z') });
    stored = [];
    usable = true;
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  const queue = (
    probe: (job: ProbeJob, cap: number) => Promise<MediaInfo>,
    over: Partial<MetadataProbeConfig> = {},
  ) =>
    new ProbeQueue(
      { ...DEFAULT_METADATA_PROBE_CONFIG, ...over },
      {
        probe,
        store: (probeJob) => {
          stored.push(probeJob.itemId);
          return Promise.resolve();
        },
        toolUsable: () => usable,
        logger,
      },
    );

  it('starts after the start delay with the traffic cap, and stores the result once', async () => {
    const probes = manualProbes();
    const probing = queue(probes.probe, { startDelaySeconds: 5, trafficCapMb: 16 });
    probing.played(job('a'));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(probes.pending).toHaveLength(0);
    expect(probing.stats().queued).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(probes.pending.map((p) => [p.job.itemId, p.cap])).toEqual([['a', 16 * 1024 * 1024]]);
    probes.pending[0]!.resolve();
    await vi.waitFor(() => expect(stored).toEqual(['a']));
    // Played again while players still hold the item without metadata: not probed again.
    probing.played(job('a'));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(probes.pending).toHaveLength(1);
    expect(probing.stats()).toMatchObject({ stored: 1, queued: 0, running: 0 });
  });

  it('runs at most maxConcurrency probes at a time', async () => {
    const probes = manualProbes();
    const probing = queue(probes.probe, { startDelaySeconds: 0, maxConcurrency: 1 });
    for (const id of ['a', 'b', 'c']) probing.played(job(id));
    await vi.advanceTimersByTimeAsync(0);
    expect(probes.pending).toHaveLength(1);
    expect(probing.stats()).toMatchObject({ running: 1, queued: 2 });
    probing.apply({ ...DEFAULT_METADATA_PROBE_CONFIG, startDelaySeconds: 0, maxConcurrency: 2 });
    expect(probes.pending).toHaveLength(2);
    probes.pending[0]!.resolve();
    await vi.waitFor(() => expect(probes.pending).toHaveLength(3));
    expect(probing.stats().running).toBe(2);
  });

  it('rests a failed file for the cooldown', async () => {
    const probes = manualProbes();
    const probing = queue(probes.probe, { startDelaySeconds: 0, failureCooldownHours: 1 });
    probing.played(job('a'));
    await vi.advanceTimersByTimeAsync(0);
    probes.pending[0]!.reject(new Error('ffprobe could not read the file'));
    await vi.waitFor(() => expect(probing.stats()).toMatchObject({ failed: 1, coolingDown: 1 }));
    probing.played(job('a'));
    await vi.advanceTimersByTimeAsync(59 * 60 * 1000);
    probing.played(job('a'));
    await vi.advanceTimersByTimeAsync(0);
    expect(probes.pending).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(60 * 1000);
    probing.played(job('a'));
    await vi.advanceTimersByTimeAsync(0);
    expect(probes.pending).toHaveLength(2);
  });

  it(`keeps at most ${METADATA_PROBE_QUEUE_LIMIT} files waiting and counts the ones dropped`, async () => {
    const probes = manualProbes();
    const probing = queue(probes.probe, { startDelaySeconds: 10 });
    for (let index = 0; index < METADATA_PROBE_QUEUE_LIMIT + 8; index += 1) probing.played(job(`f${index}`));
    probing.played(job('f0')); // already queued: neither queued twice nor dropped
    expect(probing.stats()).toMatchObject({ queued: METADATA_PROBE_QUEUE_LIMIT, dropped: 8 });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(probes.pending).toHaveLength(1);
    expect(probing.stats()).toMatchObject({ queued: METADATA_PROBE_QUEUE_LIMIT - 1, running: 1 });
    const stopping = probing.stop();
    probes.pending[0]!.resolve();
    await stopping;
    expect(probing.stats()).toMatchObject({ queued: 0, running: 0 });
  });

  it('leaves files with metadata alone, and does nothing when off or without a working probe tool', async () => {
    const probes = manualProbes();
    const probing = queue(probes.probe, { startDelaySeconds: 0 });
    probing.played(job('known', INFO));
    usable = false;
    probing.played(job('no-tool'));
    usable = true;
    probing.apply({ ...DEFAULT_METADATA_PROBE_CONFIG, enabled: false });
    probing.played(job('off'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(probes.pending).toHaveLength(0);
    expect(probing.stats()).toMatchObject({ queued: 0, dropped: 0 });
  });
});
