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
  UNCLAIMED_BYTES_MS,
  type PlayContext,
  type PlayedMedia,
  type PlayReport,
} from '../../../src/services/play-agent/reporting/play-sessions.js';
import { UsageMeter } from '../../../src/services/play-agent/reporting/usage-meter.js';

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

  it('close() gives up at the deadline when the log stays unreachable, and says so', async () => {
    const log = fakeActivityLog(Number.POSITIVE_INFINITY);
    const errors = vi.spyOn(logger, 'error');
    const reporter = new ActivityReporter({ users: log.users, logger });
    reporter.record(event(1));
    const started = Date.now();

    await reporter.close(300);

    expect(Date.now() - started).toBeLessThan(2_000);
    expect(reporter.queued).toBe(1);
    expect(errors).toHaveBeenCalledWith({ lost: 1 }, expect.any(String));
    errors.mockRestore();
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
    h.sessions.addStreamBytes(context('tok-1'), media('item-1'), 1_000);
    h.sessions.addStreamBytes(context('tok-1'), media('item-1'), 500);
    h.sessions.addStreamBytes(context('tok-1'), media('item-2'), 700); // another item
    h.sessions.addStreamBytes(context('tok-2'), media('item-1'), 300); // another token
    h.sessions.addStreamBytes(context('tok-1'), media('item-1'), 0);
    h.sessions.addStreamBytes(context('tok-1'), media('item-1'), -5);
    report('start');
    report('progress');
    h.sessions.addStreamBytes(context('tok-1'), media('item-1'), 250);
    h.sessions.addStreamBytes(context('tok-1'), media('item-1'), 50);
    report('stop');

    const deltas = h.events.map((e) => e.bytesDelta);
    expect(deltas).toEqual([1_500, 0, 300]);
    expect(deltas.reduce((a, b) => a + b, 0)).toBe(1_800);
  });

  it('bytes of another item or token are not attached; nobody claims them until the sweep', () => {
    const h = sessionsHarness();
    h.sessions.addStreamBytes(context('tok-1'), media('item-2'), 700);
    h.sessions.addStreamBytes(context('tok-2'), media('item-1'), 300);
    h.sessions.report('start', context('tok-1'), media('item-1'), playing());
    h.sessions.report('stop', context('tok-1'), media('item-1'), playing());
    expect(h.events.map((e) => e.bytesDelta)).toEqual([0, 0]);

    h.advance(UNCLAIMED_BYTES_MS);
    h.sessions.sweep();
    const loose = h.events.slice(2);
    expect(loose.map((e) => [e.eventType, e.mediaId, e.bytesDelta]).sort()).toEqual([
      ['progress', 'item-1', 300],
      ['progress', 'item-2', 700],
    ]);
  });

  it('sweep(): unclaimed bytes become a progress event after UNCLAIMED_BYTES_MS, once', () => {
    const h = sessionsHarness();
    const ctx = context('tok-9', { endpointId: 'ep-2' });
    h.sessions.addStreamBytes(ctx, media('dl'), 4_096);
    h.advance(UNCLAIMED_BYTES_MS - 1);
    h.sessions.sweep();
    expect(h.events).toHaveLength(0);

    h.advance(1);
    h.sessions.sweep();
    expect(h.events).toHaveLength(1);
    expect(h.events[0]).toMatchObject({
      eventType: 'progress',
      mediaId: 'dl',
      bytesDelta: 4_096,
      durationMs: 0,
      endpointId: 'ep-2',
      nodeId: 'node-1',
      result: null,
    });
    expect(h.events[0]!.sessionId.length).toBeGreaterThan(0);

    h.advance(UNCLAIMED_BYTES_MS);
    h.sessions.sweep();
    expect(h.events).toHaveLength(1);
  });

  it('new bytes keep a stream unclaimed-but-alive: the clock restarts with each addition', () => {
    const h = sessionsHarness();
    h.sessions.addStreamBytes(context(), media(), 10);
    h.advance(UNCLAIMED_BYTES_MS - 1_000);
    h.sessions.addStreamBytes(context(), media(), 20);
    h.advance(1_000);
    h.sessions.sweep();
    expect(h.events).toHaveLength(0);
    h.advance(UNCLAIMED_BYTES_MS);
    h.sessions.sweep();
    expect(h.events.map((e) => e.bytesDelta)).toEqual([30]);
  });

  it('sweep(): a session idle for SESSION_IDLE_MS is closed with a stop event, result timeout', () => {
    const h = sessionsHarness();
    h.sessions.report('start', context(), media(), playing({ playSessionId: 'ps-idle' }));
    h.advance(SESSION_IDLE_MS - 60_000);
    h.sessions.addStreamBytes(context(), media(), 999); // streamed but not reported yet
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

  it('close() emits everything open: a stop per session and the unclaimed bytes', () => {
    const h = sessionsHarness();
    h.sessions.report('start', context('tok-1'), media('item-1'), playing({ playSessionId: 'a' }));
    h.sessions.report('start', context('tok-2'), media('item-1'), playing({ playSessionId: 'b' }));
    h.sessions.addStreamBytes(context('tok-1'), media('item-1'), 100);
    h.sessions.addStreamBytes(context('tok-3'), media('item-3'), 200);
    h.advance(1_000);

    h.sessions.close();

    const closing = h.events.slice(2);
    expect(
      closing
        .filter((e) => e.eventType === 'stop')
        .map((e) => e.sessionId)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(closing.find((e) => e.sessionId === 'a')!.bytesDelta).toBe(100);
    const loose = closing.filter((e) => e.eventType === 'progress');
    expect(loose.map((e) => [e.mediaId, e.bytesDelta])).toEqual([['item-3', 200]]);
    expect(h.sessions.open).toBe(0);
    const total = h.events.reduce((sum, e) => sum + e.bytesDelta, 0);
    expect(total).toBe(300);
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
    h.sessions.addStreamBytes(context(), media('item-2'), 500);
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
