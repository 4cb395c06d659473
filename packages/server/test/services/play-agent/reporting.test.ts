import { randomUUID } from 'node:crypto';
import { activityEventSchema, type ActivityEvent, type UsageReportRequest } from '@svc/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../src/platform/http/errors.js';
import { createLogger } from '../../../src/platform/logger.js';
import { ActivityReporter } from '../../../src/services/play-agent/reporting/activity-reporter.js';
import {
  MAX_EVENT_GAP_MS,
  PlaySessions,
  SESSION_IDLE_MS,
  type PlayContext,
  type PlayedMedia,
  type PlayReport,
} from '../../../src/services/play-agent/reporting/play-sessions.js';
import { UsageMeter } from '../../../src/services/play-agent/reporting/usage-meter.js';
import {
  BARE_STREAM_GRACE_MS,
  BARE_STREAM_MIN_BYTES,
  BARE_STREAM_MIN_OPEN_MS,
  BARE_STREAM_PROGRESS_MS,
} from '../../../src/services/play-agent/reporting/bare-streams.js';

const logger = createLogger({ level: 'silent', component: 'test' });

const USER_1 = '11111111-1111-4111-8111-111111111111';
const USER_2 = '22222222-2222-4222-8222-222222222222';

/** A promise resolved or rejected from outside. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function event(n: number): ActivityEvent {
  return {
    eventId: randomUUID(),
    userId: USER_1,
    eventType: 'progress',
    occurredAt: new Date(1_700_000_000_000 + n).toISOString(),
    sessionId: `s-${n}`,
    clientIp: '10.0.0.1',
    userAgent: 'test',
    mediaId: 'm-1',
    mediaType: 'movie',
    mediaName: 'Movie',
    seriesName: null,
    durationMs: n,
    bytesDelta: 0,
    positionSec: null,
    runtimeSec: null,
    nodeId: 'node-1',
    endpointId: null,
    client: '',
    deviceName: '',
    deviceId: '',
    playMethod: 'DirectStream',
    result: null,
    reason: null,
    extras: {},
  };
}

/** A user service whose activity route fails `failures` times, then stores what it gets. */
function fakeActivityLog(failures = 0) {
  const calls: string[][] = [];
  const stored: string[] = [];
  let left = failures;
  const recordActivity = vi.fn(async (events: ActivityEvent[]) => {
    calls.push(events.map((e) => e.eventId));
    if (left > 0) {
      left -= 1;
      throw new AppError(503, 'UPSTREAM_UNAVAILABLE', 'user is not available');
    }
    stored.push(...events.map((e) => e.eventId));
  });
  return {
    users: { recordActivity },
    calls,
    stored,
    fail(times: number) {
      left = times;
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('ActivityReporter', () => {
  it('sends queued events as one batch, in order, and empties the queue', async () => {
    const log = fakeActivityLog();
    const reporter = new ActivityReporter({ users: log.users, logger });
    const events = [event(1), event(2), event(3)];
    events.forEach((e) => reporter.record(e));
    expect(log.calls).toHaveLength(0);
    expect(reporter.queued).toBe(3);

    await reporter.flush();

    expect(log.calls).toEqual([events.map((e) => e.eventId)]);
    expect(reporter.queued).toBe(0);
    await reporter.flush();
    expect(log.calls).toHaveLength(1);
  });

  it('record() of the 500th queued event starts a flush; batches hold at most 500 events', async () => {
    const log = fakeActivityLog();
    const reporter = new ActivityReporter({ users: log.users, logger });
    const events = Array.from({ length: 1_200 }, (_, i) => event(i));
    events.slice(0, 499).forEach((e) => reporter.record(e));
    expect(log.users.recordActivity).not.toHaveBeenCalled();

    reporter.record(events[499]!);
    expect(log.users.recordActivity).toHaveBeenCalledTimes(1);
    events.slice(500).forEach((e) => reporter.record(e));
    await reporter.flush();

    expect(log.calls.map((batch) => batch.length)).toEqual([500, 500, 200]);
    expect(log.stored).toEqual(events.map((e) => e.eventId));
    expect(reporter.queued).toBe(0);
  });

  it('a failed batch stays queued and is sent again with the same eventIds', async () => {
    const log = fakeActivityLog(1);
    const reporter = new ActivityReporter({ users: log.users, logger });
    const events = [event(1), event(2)];
    events.forEach((e) => reporter.record(e));

    await reporter.flush();
    expect(log.calls).toHaveLength(1);
    expect(log.stored).toEqual([]);
    expect(reporter.queued).toBe(2);

    reporter.record(event(3));
    await reporter.flush();
    expect(log.calls).toHaveLength(2);
    expect(log.calls[1]!.slice(0, 2)).toEqual(log.calls[0]);
    expect(log.stored.slice(0, 2)).toEqual(events.map((e) => e.eventId));
    expect(log.stored).toHaveLength(3);
    expect(new Set(log.stored).size).toBe(3);
    expect(reporter.queued).toBe(0);
  });

  it('start() flushes on its interval', async () => {
    vi.useFakeTimers();
    const log = fakeActivityLog();
    const reporter = new ActivityReporter({ users: log.users, logger, flushMs: 1_000 });
    reporter.start();
    reporter.record(event(1));
    await vi.advanceTimersByTimeAsync(999);
    expect(log.calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(log.calls).toHaveLength(1);
    await reporter.close();
  });

  it('close() sends everything queued, retrying failed attempts within the deadline', async () => {
    const log = fakeActivityLog(2);
    const reporter = new ActivityReporter({ users: log.users, logger });
    const events = Array.from({ length: 3 }, (_, i) => event(i));
    events.forEach((e) => reporter.record(e));

    await reporter.close(3_000);

    expect(log.calls.length).toBe(3);
    expect(log.stored).toEqual(events.map((e) => e.eventId));
    expect(reporter.queued).toBe(0);
  });

  it('dropping the oldest events while a batch is out does not lose newer ones when it succeeds', async () => {
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const gate = deferred();
    const sent: string[][] = [];
    const reporter = new ActivityReporter({
      users: {
        recordActivity: async (batch) => {
          sent.push(batch.map((e) => e.eventId));
          await gate.promise;
        },
      },
      logger,
    });
    const all = Array.from({ length: 100_010 }, (_, i) => event(i));
    all.forEach((e) => reporter.record(e)); // the first 500 went out; the 10 oldest are dropped meanwhile
    expect(sent[0]).toHaveLength(500);
    gate.resolve();
    await reporter.flush();
    // e10–e499 were in the batch and are gone; e500 onwards must all still be queued or sent.
    const remaining = 100_010 - 500;
    expect(reporter.queued + sent.slice(1).flat().length).toBe(remaining);
    errors.mockRestore();
  });

  it('close() gives up at the deadline when the log stays unreachable, and hands the rest back', async () => {
    const log = fakeActivityLog(Number.POSITIVE_INFINITY);
    const reporter = new ActivityReporter({ users: log.users, logger });
    const queued = event(1);
    reporter.record(queued);
    const started = Date.now();

    const unsent = await reporter.close(300);

    expect(Date.now() - started).toBeLessThan(2_000);
    expect(unsent.map((e) => e.eventId)).toEqual([queued.eventId]);
  });

  it('requeue() sends events kept from an earlier run before newer ones', async () => {
    const log = fakeActivityLog();
    const reporter = new ActivityReporter({ users: log.users, logger });
    const newer = event(2);
    reporter.record(newer);
    const kept = [event(0), event(1)];
    reporter.requeue(kept);
    expect(await reporter.close()).toEqual([]);
    expect(log.stored).toEqual([...kept, newer].map((e) => e.eventId));
  });
});

describe('UsageMeter at a stop', () => {
  const route = { userId: USER_1, endpointId: null };

  it('close() hands back the traffic the user service did not take, and restore() sends it later', async () => {
    const recorded: UsageReportRequest[] = [];
    let reachable = false;
    const users = {
      recordUsage: vi.fn(async (usage: UsageReportRequest) => {
        if (!reachable) throw new AppError(503, 'UPSTREAM_UNAVAILABLE', 'user is not available');
        recorded.push(usage);
      }),
    };
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const meter = new UsageMeter({ users, nodeId: 'node-1', logger });
    meter.add(route, 1000);
    meter.add({ userId: USER_2, endpointId: 'edge-1' }, 500);
    const unsent = await meter.close();
    expect(unsent).toEqual([
      { route, bytes: 1000 },
      { route: { userId: USER_2, endpointId: 'edge-1' }, bytes: 500 },
    ]);

    reachable = true;
    const next = new UsageMeter({ users, nodeId: 'node-1', logger });
    next.restore(unsent);
    next.add(route, 24);
    expect(await next.close()).toEqual([]);
    expect(recorded).toEqual([
      { userId: USER_1, nodeId: 'node-1', bytes: 1024 },
      { userId: USER_2, nodeId: 'node-1', endpointId: 'edge-1', bytes: 500 },
    ]);
    warn.mockRestore();
  });
});

// --- PlaySessions ------------------------------------------------------------------------------------------

const device = { client: 'Emby Web', deviceName: 'Firefox', deviceId: 'dev-1', version: '4.8' };

function context(tokenId = 'tok-1', overrides: Partial<PlayContext> = {}): PlayContext {
  return {
    userId: USER_1,
    tokenId,
    device,
    clientIp: '192.0.2.1',
    userAgent: 'Mozilla/5.0',
    endpointId: null,
    ...overrides,
  };
}

function media(id = 'item-1'): PlayedMedia {
  return { id, type: 'movie', name: `Movie ${id}`, seriesName: null, runtimeSec: 5_400 };
}

const playing = (overrides: Partial<PlayReport> = {}): PlayReport => ({
  positionSec: 0,
  isPaused: false,
  playMethod: 'DirectStream',
  ...overrides,
});

function sessionsHarness() {
  let clock = 1_700_000_000_000;
  const events: ActivityEvent[] = [];
  const sessions = new PlaySessions({
    reporter: {
      record: (e) => {
        // Everything emitted must be acceptable to the user service.
        activityEventSchema.parse(e);
        events.push(e);
      },
    },
    nodeId: 'node-1',
    now: () => clock,
  });
  return {
    sessions,
    events,
    /** A whole connection of a byte route that wrote `bytes` (and ended at once). */
    streamed(ctx: PlayContext, item: PlayedMedia, bytes: number) {
      const connection = sessions.openStream(ctx, item, 'play');
      connection.bytes(bytes);
      connection.end();
    },
    advance(ms: number) {
      clock += ms;
    },
    get now() {
      return clock;
    },
  };
}

describe('PlaySessions', () => {
  it('start, progress and stop carry the PlaySessionId and the wall time since the previous event', () => {
    const h = sessionsHarness();
    const ctx = context('tok-1', { endpointId: 'ep-1' });
    h.sessions.report('start', ctx, media(), playing({ playSessionId: 'ps-1' }));
    expect(h.sessions.open).toBe(1);
    h.advance(10_000);
    h.sessions.report('progress', ctx, media(), playing({ playSessionId: 'ps-1', positionSec: 10 }));
    h.advance(4_000);
    h.sessions.report('stop', ctx, media(), playing({ playSessionId: 'ps-1', positionSec: 14 }));

    expect(h.events.map((e) => [e.eventType, e.sessionId, e.durationMs])).toEqual([
      ['start', 'ps-1', 0],
      ['progress', 'ps-1', 10_000],
      ['stop', 'ps-1', 4_000],
    ]);
    const stop = h.events[2]!;
    expect(stop).toMatchObject({
      userId: USER_1,
      mediaId: 'item-1',
      mediaType: 'movie',
      positionSec: 14,
      runtimeSec: 5_400,
      nodeId: 'node-1',
      endpointId: 'ep-1',
      client: 'Emby Web',
      deviceId: 'dev-1',
      result: 'completed',
      occurredAt: new Date(h.now).toISOString(),
    });
    expect(h.events[0]!.result).toBeNull();
    expect(new Set(h.events.map((e) => e.eventId)).size).toBe(3);
    expect(h.sessions.open).toBe(0);
  });

  it('without a PlaySessionId, one made-up session id per token and item', () => {
    const h = sessionsHarness();
    h.sessions.report('start', context('tok-1'), media('item-1'), playing());
    h.sessions.report('start', context('tok-2'), media('item-1'), playing());
    h.advance(1_000);
    h.sessions.report('progress', context('tok-1'), media('item-1'), playing());
    h.sessions.report('stop', context('tok-1'), media('item-1'), playing());

    const [a, b, c, d] = h.events;
    expect(a!.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(b!.sessionId).not.toBe(a!.sessionId);
    expect(c!.sessionId).toBe(a!.sessionId);
    expect(d!.sessionId).toBe(a!.sessionId);
    expect(c!.durationMs).toBe(1_000);
    expect(h.sessions.open).toBe(1);
  });

  it('a stop report with Failed gives the result failed', () => {
    const h = sessionsHarness();
    h.sessions.report('start', context(), media(), playing({ playSessionId: 'ps' }));
    h.sessions.report('stop', context(), media(), playing({ playSessionId: 'ps', failed: true }));
    expect(h.events[1]!.result).toBe('failed');
  });

  it('the time after a report that said IsPaused counts 0', () => {
    const h = sessionsHarness();
    const report = (type: 'start' | 'progress' | 'stop', isPaused: boolean) =>
      h.sessions.report(type, context(), media(), playing({ playSessionId: 'ps', isPaused }));
    report('start', false);
    h.advance(3_000);
    report('progress', true); // watched 3 s, then paused
    h.advance(60_000);
    report('progress', false); // paused the whole minute
    h.advance(7_000);
    report('progress', false);
    h.advance(2_000);
    report('stop', false);
    expect(h.events.map((e) => e.durationMs)).toEqual([0, 3_000, 0, 7_000, 2_000]);
  });

  it('an event carries at most MAX_EVENT_GAP_MS of watch time', () => {
    const h = sessionsHarness();
    h.sessions.report('start', context(), media(), playing({ playSessionId: 'ps' }));
    h.advance(MAX_EVENT_GAP_MS + 60_000);
    h.sessions.report('progress', context(), media(), playing({ playSessionId: 'ps' }));
    h.advance(MAX_EVENT_GAP_MS - 1);
    h.sessions.report('progress', context(), media(), playing({ playSessionId: 'ps' }));
    expect(h.events.map((e) => e.durationMs)).toEqual([0, MAX_EVENT_GAP_MS, MAX_EVENT_GAP_MS - 1]);
  });

  it('streamed bytes go to the next report of the same token and item, once', () => {
    const h = sessionsHarness();
    const report = (type: 'start' | 'progress' | 'stop') =>
      h.sessions.report(type, context('tok-1'), media('item-1'), playing({ playSessionId: 'ps' }));
    const connection = h.sessions.openStream(context('tok-1'), media('item-1'), 'play');
    connection.bytes(1_000);
    connection.bytes(500);
    h.streamed(context('tok-1'), media('item-2'), 700); // another item
    h.streamed(context('tok-2'), media('item-1'), 300); // another token
    connection.bytes(0);
    connection.bytes(-5);
    report('start');
    report('progress');
    connection.bytes(250);
    h.streamed(context('tok-1'), media('item-1'), 50); // a second connection of the same stream
    report('stop');
    connection.end();

    const deltas = h.events.map((e) => e.bytesDelta);
    expect(deltas).toEqual([1_500, 0, 300]);
    expect(deltas.reduce((a, b) => a + b, 0)).toBe(1_800);
  });

  it('a probe (a short read of another item or token) leaves nothing, however many bytes it read', () => {
    const h = sessionsHarness();
    h.streamed(context('tok-1'), media('item-2'), 50 * BARE_STREAM_MIN_BYTES);
    h.streamed(context('tok-2'), media('item-1'), 300);
    h.sessions.report('start', context('tok-1'), media('item-1'), playing());
    h.sessions.report('stop', context('tok-1'), media('item-1'), playing());
    expect(h.events.map((e) => e.bytesDelta)).toEqual([0, 0]);

    h.advance(BARE_STREAM_GRACE_MS - 1);
    h.sessions.sweep();
    expect(h.sessions.streamsTracked).toBe(2);
    h.advance(1);
    h.sessions.sweep();
    expect(h.sessions.streamsTracked).toBe(0);
    h.advance(SESSION_IDLE_MS);
    h.sessions.sweep();
    h.sessions.close();
    expect(h.events).toHaveLength(2);
  });

  it('a stream without reports counts once it was open BARE_STREAM_MIN_OPEN_MS and sent BARE_STREAM_MIN_BYTES', () => {
    const h = sessionsHarness();
    const ctx = context('tok-9', { endpointId: 'ep-2' });
    const openedAt = h.now;
    const connection = h.sessions.openStream(ctx, media('long'), 'play');
    connection.bytes(BARE_STREAM_MIN_BYTES);
    h.advance(BARE_STREAM_MIN_OPEN_MS - 1);
    h.sessions.sweep();
    expect(h.events).toHaveLength(0);

    h.advance(1);
    h.sessions.sweep();
    expect(h.events.map((e) => [e.eventType, e.durationMs, e.bytesDelta])).toEqual([
      ['start', 0, BARE_STREAM_MIN_BYTES],
      ['progress', BARE_STREAM_MIN_OPEN_MS, 0],
    ]);
    const [start] = h.events;
    expect(start).toMatchObject({
      mediaId: 'long',
      occurredAt: new Date(openedAt).toISOString(),
      endpointId: 'ep-2',
      client: 'Emby Web',
      positionSec: null,
      reason: 'stream without playback reports',
    });
    expect(start!.sessionId).toMatch(/^stream-/);
    expect(new Set(h.events.map((e) => e.sessionId)).size).toBe(1);

    // Open: a progress every BARE_STREAM_PROGRESS_MS with the time and bytes since the previous event.
    connection.bytes(4_096);
    h.advance(BARE_STREAM_PROGRESS_MS);
    h.sessions.sweep();
    expect(h.events.slice(2).map((e) => [e.eventType, e.durationMs, e.bytesDelta])).toEqual([
      ['progress', BARE_STREAM_PROGRESS_MS, 4_096],
    ]);

    // Closed: the stop comes BARE_STREAM_GRACE_MS later, with the open time up to the close.
    h.advance(10_000);
    connection.end();
    h.advance(BARE_STREAM_GRACE_MS - 1);
    h.sessions.sweep();
    expect(h.events).toHaveLength(3);
    h.advance(1);
    h.sessions.sweep();
    expect(h.events.slice(3)).toMatchObject([
      {
        eventType: 'stop',
        durationMs: 10_000,
        bytesDelta: 0,
        result: 'completed',
        sessionId: start!.sessionId,
      },
    ]);
    expect(h.sessions.streamsTracked).toBe(0);
  });

  it('a long stream of a few bytes, or a fast one closed early, is no session; reconnections add up', () => {
    const h = sessionsHarness();
    const slow = h.sessions.openStream(context('tok-1'), media('slow'), 'play');
    slow.bytes(BARE_STREAM_MIN_BYTES - 1);
    h.streamed(context('tok-2'), media('fast'), 100 * BARE_STREAM_MIN_BYTES);
    h.advance(10 * BARE_STREAM_MIN_OPEN_MS);
    h.sessions.sweep();
    expect(h.events).toHaveLength(0);
    slow.end();

    // Open 20 s, a seek (a 10 s gap), open again: counted once the open time reaches the threshold.
    const first = h.sessions.openStream(context('tok-3'), media('seek'), 'play');
    first.bytes(BARE_STREAM_MIN_BYTES);
    h.advance(20_000);
    first.end();
    h.advance(10_000);
    h.sessions.sweep();
    const second = h.sessions.openStream(context('tok-3'), media('seek'), 'play');
    h.advance(BARE_STREAM_MIN_OPEN_MS - 20_000 - 1);
    h.sessions.sweep();
    expect(h.events).toHaveLength(0);
    h.advance(1);
    h.sessions.sweep();
    expect(h.events.map((e) => [e.eventType, e.mediaId, e.durationMs])).toEqual([
      ['start', 'seek', 0],
      ['progress', 'seek', BARE_STREAM_MIN_OPEN_MS],
    ]);
    second.end();
  });

  it('a report takes over a stream: before the threshold no session of its own, after it that one stops', () => {
    const h = sessionsHarness();
    const early = h.sessions.openStream(context('tok-1'), media('item-1'), 'play');
    early.bytes(10 * BARE_STREAM_MIN_BYTES);
    h.advance(5_000);
    h.sessions.report('start', context('tok-1'), media('item-1'), playing({ playSessionId: 'ps-1' }));
    h.advance(10 * BARE_STREAM_MIN_OPEN_MS);
    h.sessions.sweep();
    expect(h.events.map((e) => [e.eventType, e.sessionId, e.bytesDelta])).toEqual([
      ['start', 'ps-1', 10 * BARE_STREAM_MIN_BYTES],
    ]);
    early.end();

    const late = h.sessions.openStream(context('tok-2'), media('item-2'), 'play');
    late.bytes(BARE_STREAM_MIN_BYTES);
    h.advance(BARE_STREAM_MIN_OPEN_MS);
    h.sessions.sweep();
    late.bytes(7);
    h.sessions.report('start', context('tok-2'), media('item-2'), playing({ playSessionId: 'ps-2' }));
    expect(
      h.events.slice(1).map((e) => [e.eventType, e.sessionId.startsWith('stream-'), e.bytesDelta]),
    ).toEqual([
      ['start', true, BARE_STREAM_MIN_BYTES],
      ['progress', true, 0],
      ['stop', true, 7],
      ['start', false, 0],
    ]);
    expect(h.events[3]).toMatchObject({ reason: 'a playback report took over', result: 'completed' });
    late.end();
  });

  it('a stream whose reported session timed out while its bytes still flow is judged on its own', () => {
    const h = sessionsHarness();
    h.sessions.report('start', context(), media(), playing({ playSessionId: 'ps' }));
    const connection = h.sessions.openStream(context(), media(), 'play');
    connection.bytes(BARE_STREAM_MIN_BYTES);
    h.advance(SESSION_IDLE_MS);
    h.sessions.sweep();
    expect(h.events.map((e) => [e.eventType, e.sessionId, e.bytesDelta])).toEqual([
      ['start', 'ps', 0],
      ['stop', 'ps', BARE_STREAM_MIN_BYTES],
    ]);
    connection.bytes(BARE_STREAM_MIN_BYTES);
    h.advance(BARE_STREAM_MIN_OPEN_MS);
    h.sessions.sweep();
    expect(h.events.slice(2).map((e) => [e.eventType, e.bytesDelta, e.durationMs])).toEqual([
      ['start', BARE_STREAM_MIN_BYTES, 0],
      ['progress', 0, BARE_STREAM_MIN_OPEN_MS],
    ]);
    connection.end();
  });

  it('a long download counts as a session without watch time', () => {
    const h = sessionsHarness();
    const download = h.sessions.openStream(context(), media('dl'), 'download');
    download.bytes(BARE_STREAM_MIN_BYTES);
    h.advance(BARE_STREAM_MIN_OPEN_MS);
    h.sessions.sweep();
    download.end();
    h.advance(BARE_STREAM_GRACE_MS);
    h.sessions.sweep();
    expect(h.events.map((e) => [e.eventType, e.durationMs])).toEqual([
      ['start', 0],
      ['progress', 0],
      ['stop', 0],
    ]);
    expect(h.events[0]!.reason).toBe('download');
  });

  it('sweep(): a session idle for SESSION_IDLE_MS is closed with a stop event, result timeout', () => {
    const h = sessionsHarness();
    h.sessions.report('start', context(), media(), playing({ playSessionId: 'ps-idle' }));
    h.advance(SESSION_IDLE_MS - 60_000);
    h.streamed(context(), media(), 999); // streamed but not reported yet
    h.advance(60_000 - 1);
    h.sessions.sweep();
    expect(h.events).toHaveLength(1);
    expect(h.sessions.open).toBe(1);

    h.advance(1);
    h.sessions.sweep();
    expect(h.sessions.open).toBe(0);
    expect(h.events).toHaveLength(2);
    expect(h.events[1]).toMatchObject({
      eventType: 'stop',
      sessionId: 'ps-idle',
      result: 'timeout',
      durationMs: 0,
      bytesDelta: 999,
    });

    h.advance(SESSION_IDLE_MS);
    h.sessions.sweep();
    expect(h.events).toHaveLength(2);
  });

  it('ping keeps a session open without an event', () => {
    const h = sessionsHarness();
    h.sessions.report('start', context(), media(), playing({ playSessionId: 'ps' }));
    h.advance(SESSION_IDLE_MS - 1_000);
    expect(h.sessions.ping('ps')).toBe(true);
    expect(h.sessions.ping('unknown')).toBe(false);
    h.advance(1_000);
    h.sessions.sweep();
    expect(h.events).toHaveLength(1);
    expect(h.sessions.open).toBe(1);
  });

  it('close() emits everything open: a stop per session and per counted stream; probes leave nothing', () => {
    const h = sessionsHarness();
    const counted = h.sessions.openStream(context('tok-3'), media('item-3'), 'play');
    counted.bytes(BARE_STREAM_MIN_BYTES);
    h.advance(BARE_STREAM_MIN_OPEN_MS);
    h.sessions.sweep();
    counted.bytes(200);
    h.streamed(context('tok-4'), media('item-4'), 5_000); // a probe
    h.events.length = 0;
    h.sessions.report('start', context('tok-1'), media('item-1'), playing({ playSessionId: 'a' }));
    h.sessions.report('start', context('tok-2'), media('item-1'), playing({ playSessionId: 'b' }));
    h.streamed(context('tok-1'), media('item-1'), 100);
    h.advance(1_000);

    h.sessions.close();

    const closing = h.events.slice(2);
    expect(
      closing
        .filter((e) => e.eventType === 'stop' && !e.sessionId.startsWith('stream-'))
        .map((e) => e.sessionId)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(closing.find((e) => e.sessionId === 'a')!.bytesDelta).toBe(100);
    const stream = closing.filter((e) => e.sessionId.startsWith('stream-'));
    expect(stream.map((e) => [e.eventType, e.mediaId, e.bytesDelta, e.result])).toEqual([
      ['stop', 'item-3', 200, 'interrupted'],
    ]);
    expect(h.sessions.open).toBe(0);
    expect(h.sessions.streamsTracked).toBe(0);
    expect(closing.find((e) => e.sessionId === 'a')).toMatchObject({ result: 'interrupted' });
  });

  it('a ping does not shorten the watch time of the next report', () => {
    const h = sessionsHarness();
    h.sessions.report('start', context(), media(), playing({ playSessionId: 'ps' }));
    h.advance(5_000);
    h.sessions.ping('ps');
    h.advance(5_000);
    h.sessions.report('progress', context(), media(), playing({ playSessionId: 'ps' }));
    expect(h.events.map((e) => e.durationMs)).toEqual([0, 10_000]);
  });

  it('a session id reused for another item starts a new session of that item', () => {
    const h = sessionsHarness();
    h.sessions.report('start', context(), media('item-1'), playing({ playSessionId: 'ps' }));
    h.advance(3_000);
    h.streamed(context(), media('item-2'), 500);
    h.sessions.report('progress', context(), media('item-2'), playing({ playSessionId: 'ps' }));
    expect(h.events.map((e) => [e.mediaId, e.durationMs, e.bytesDelta])).toEqual([
      ['item-1', 0, 0],
      ['item-2', 0, 500],
    ]);
  });
});

// --- UsageMeter --------------------------------------------------------------------------------------------

function fakeUsage() {
  const recorded: UsageReportRequest[] = [];
  let answer: (report: UsageReportRequest) => Promise<void> = async () => undefined;
  const recordUsage = vi.fn(async (report: UsageReportRequest) => {
    await answer(report);
    recorded.push(report);
  });
  return {
    users: { recordUsage },
    recorded,
    answerWith(fn: (report: UsageReportRequest) => Promise<void>) {
      answer = fn;
    },
  };
}

describe('UsageMeter', () => {
  it('counts unrecorded bytes per user (all routes) and per route (null = this node)', () => {
    const meter = new UsageMeter({ users: fakeUsage().users, nodeId: 'node-1', logger });
    meter.add({ userId: USER_1, endpointId: null }, 100);
    meter.add({ userId: USER_1, endpointId: null }, 1);
    meter.add({ userId: USER_1, endpointId: 'ep-1' }, 50);
    meter.add({ userId: USER_2, endpointId: null }, 7);
    meter.add({ userId: USER_1, endpointId: 'ep-2' }, 0);
    meter.add({ userId: USER_1, endpointId: 'ep-2' }, -10);

    expect(meter.unrecorded(USER_1)).toBe(151);
    expect(meter.unrecorded(USER_1, null)).toBe(101);
    expect(meter.unrecorded(USER_1, 'ep-1')).toBe(50);
    expect(meter.unrecorded(USER_1, 'ep-2')).toBe(0);
    expect(meter.unrecorded(USER_2)).toBe(7);
    expect(meter.unrecorded('nobody')).toBe(0);
  });

  it('flush() sends one report per user and route, with nodeId and endpointId, then calls onRecorded', async () => {
    const usage = fakeUsage();
    const onRecorded = vi.fn();
    const meter = new UsageMeter({ users: usage.users, nodeId: 'node-1', logger, onRecorded });
    meter.add({ userId: USER_1, endpointId: null }, 100);
    meter.add({ userId: USER_1, endpointId: 'ep-1' }, 50);
    meter.add({ userId: USER_2, endpointId: null }, 7);
    meter.add({ userId: USER_1, endpointId: null }, 20);

    await meter.flush();

    expect(usage.recorded).toHaveLength(3);
    expect(usage.recorded).toEqual(
      expect.arrayContaining([
        { userId: USER_1, nodeId: 'node-1', bytes: 120 },
        { userId: USER_1, nodeId: 'node-1', endpointId: 'ep-1', bytes: 50 },
        { userId: USER_2, nodeId: 'node-1', bytes: 7 },
      ]),
    );
    // The node route names no endpoint at all (the contract's endpointId is optional, min 1 character).
    const nodeRoute = usage.recorded.find((r) => r.userId === USER_1 && r.bytes === 120)!;
    expect('endpointId' in nodeRoute).toBe(false);
    expect(meter.unrecorded(USER_1)).toBe(0);
    expect(meter.unrecorded(USER_2)).toBe(0);
    expect(onRecorded.mock.calls.map(([userId]) => userId as string).sort()).toEqual(
      [USER_1, USER_1, USER_2].sort(),
    );

    await meter.flush();
    expect(usage.users.recordUsage).toHaveBeenCalledTimes(3);
  });

  it('subtracts only what was sent: bytes added during a flush stay for the next one', async () => {
    const usage = fakeUsage();
    const meter = new UsageMeter({ users: usage.users, nodeId: 'node-1', logger });
    const route = { userId: USER_1, endpointId: null };
    meter.add(route, 1_000);
    const gate = deferred();
    usage.answerWith(() => gate.promise);

    const flushing = meter.flush();
    meter.add(route, 300);
    expect(meter.unrecorded(USER_1, null)).toBe(1_300);
    gate.resolve();
    await flushing;

    expect(usage.recorded.map((r) => r.bytes)).toEqual([1_000]);
    expect(meter.unrecorded(USER_1, null)).toBe(300);

    usage.answerWith(async () => undefined);
    await meter.flush();
    expect(usage.recorded.map((r) => r.bytes)).toEqual([1_000, 300]);
    expect(meter.unrecorded(USER_1)).toBe(0);
  });

  it('a failed send keeps the bytes (they still count) and a later flush sends them', async () => {
    const usage = fakeUsage();
    const onRecorded = vi.fn();
    const meter = new UsageMeter({ users: usage.users, nodeId: 'node-1', logger, onRecorded });
    meter.add({ userId: USER_1, endpointId: 'ep-1' }, 64);
    usage.answerWith(async () => {
      throw new AppError(503, 'UPSTREAM_UNAVAILABLE', 'user is not available');
    });

    await meter.flush();
    expect(usage.recorded).toHaveLength(0);
    expect(meter.unrecorded(USER_1)).toBe(64);
    expect(meter.unrecorded(USER_1, 'ep-1')).toBe(64);
    expect(onRecorded).not.toHaveBeenCalled();

    usage.answerWith(async () => undefined);
    await meter.flush();
    expect(usage.recorded).toEqual([{ userId: USER_1, nodeId: 'node-1', endpointId: 'ep-1', bytes: 64 }]);
    expect(meter.unrecorded(USER_1)).toBe(0);
    expect(onRecorded).toHaveBeenCalledWith(USER_1);
  });

  it('a 404 from the user service (unknown user) drops that user’s bytes, others are recorded', async () => {
    const usage = fakeUsage();
    const onRecorded = vi.fn();
    const meter = new UsageMeter({ users: usage.users, nodeId: 'node-1', logger, onRecorded });
    meter.add({ userId: USER_2, endpointId: null }, 5);
    meter.add({ userId: USER_1, endpointId: null }, 9);
    usage.answerWith(async (report) => {
      if (report.userId === USER_2) throw new AppError(404, 'NOT_FOUND', 'user not found');
    });

    await meter.flush();

    expect(meter.unrecorded(USER_2)).toBe(0);
    expect(meter.unrecorded(USER_1)).toBe(0);
    expect(usage.recorded).toEqual([{ userId: USER_1, nodeId: 'node-1', bytes: 9 }]);
    expect(onRecorded.mock.calls).toEqual([[USER_1]]);
    await meter.flush();
    expect(usage.users.recordUsage).toHaveBeenCalledTimes(2);
  });

  it('concurrent flush() calls share one run; close() sends what is left', async () => {
    const usage = fakeUsage();
    const meter = new UsageMeter({ users: usage.users, nodeId: 'node-1', logger });
    meter.add({ userId: USER_1, endpointId: null }, 10);
    await Promise.all([meter.flush(), meter.flush()]);
    expect(usage.users.recordUsage).toHaveBeenCalledTimes(1);

    meter.add({ userId: USER_1, endpointId: null }, 11);
    await meter.close();
    expect(usage.recorded.map((r) => r.bytes)).toEqual([10, 11]);
  });
});
