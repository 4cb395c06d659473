import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import {
  REPORT_PLATFORMS,
  type ActivityEvent,
  type ActivityMediaType,
  type ErrorBody,
  type Identity,
  type ManagedUser,
  type ReportPlatform,
} from '@svc/contracts';
import { createConfigComponent } from '../../../../src/services/config/config.component.js';
import { createFrontendComponent } from '../../../../src/services/frontend/frontend.component.js';
import { createGatewayComponent } from '../../../../src/services/gateway/gateway.component.js';
import { createUserComponent } from '../../../../src/services/user/user.component.js';
import { installBackends } from '../../../support/install-backends.js';
import { startTestInstall, waitFor, type TestInstall } from '../../../support/runtime.js';
import { ManualClock, UserServiceClient } from '../support.js';
import {
  ReferenceReport,
  refGranularity,
  refPresetWindow,
  type RefAccount,
  type RefEvent,
  type RefWindow,
} from './reference.js';
import { Random, generateLog } from './report-fixtures.js';

const ADMIN = { username: 'root', password: 'correct horse battery' };
const PASSWORD = 'long enough password';
const DAY = 86_400_000;
const HOUR = 3_600_000;
const SEED = Number(process.env.REPORT_TEST_SEED ?? 20240306);
const WINDOWS = Number(process.env.REPORT_TEST_WINDOWS ?? 24);
const PRESETS = ['lastNight', 'today', 'yesterday', 'last24h', 'last7d', 'last30d', 'last90d'] as const;
const GRANULARITIES = ['halfHour', 'hour', 'day', 'week', 'month', 'fortnight', undefined];
const MEDIA_TYPES: (ActivityMediaType | undefined)[] = [
  'movie',
  'episode',
  'audio',
  'other',
  undefined,
  undefined,
];
const REPORTS = '/api/auth/admin/reports';
const RETENTION = '/api/auth/admin/activity-log/retention';

/** A Shanghai wall-clock time as an instant. */
const shanghai = (local: string) => Date.parse(`${local}+08:00`);

/** Floats the database averages in its own order: equal to the reference within 1e-9. */
function comparable(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, inner: unknown) =>
    key === 'avgCompletionRate' && typeof inner === 'number' ? Math.round(inner * 1e9) / 1e9 : inner,
  );
}

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

describe.each(installBackends())('playback report on $label', (backend) => {
  let install: TestInstall;
  let client: UserServiceClient;
  // Frozen at one instant; moved by hand for the presets. Tokens and the registry live with it.
  const startedAt = Date.now();
  const clock = new ManualClock(startedAt);
  let adminToken: string;
  let adminIdentity: Identity;
  const random = new Random(SEED);
  let accounts: RefAccount[] = [];
  let events: RefEvent[] = [];
  let mediaIds: string[] = [];
  let userIds: string[] = [];
  let deletedUserId: string;

  /** Through the frontend and gateway with a real admin token (the console's path). */
  const viaGateway = async <T = unknown>(method: string, route: string, token?: string, body?: unknown) => {
    const headers: Record<string, string> = {};
    if (token) headers['x-admin-token'] = token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await request(`${install.url('frontend')}${route}`, {
      method: method as 'GET',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    return { status: response.statusCode, body: (text ? JSON.parse(text) : undefined) as T };
  };
  /** Straight to the user service with an administrator's identity, as the gateway forwards it. */
  const report = async <T = unknown>(
    path: string,
    params: Record<string, string | number | undefined> = {},
  ) => {
    const answer = await client.call<T>('GET', `${REPORTS}/${path}${query(params)}`, {
      identity: adminIdentity,
    });
    return answer;
  };
  const ok = async (path: string, params: Record<string, string | number | undefined> = {}) => {
    const answer = await report(path, params);
    expect(answer.status, `${path} ${JSON.stringify(params)}: ${JSON.stringify(answer.body)}`).toBe(200);
    return answer.body;
  };
  const login = async (username: string, password = PASSWORD) => {
    const answer = await viaGateway<{ adminToken: string }>('POST', '/api/auth/login', undefined, {
      username,
      password,
      client: 'console',
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.adminToken;
  };
  const createUser = async (username: string, extra: Record<string, unknown> = {}) => {
    const created = await viaGateway<{ id: string }>('POST', '/api/auth/admin/users', adminToken, {
      username,
      password: PASSWORD,
      ...extra,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id;
  };
  const insert = async (batch: readonly ActivityEvent[]) => {
    for (let start = 0; start < batch.length; start += 1000) {
      const answer = await client.call('POST', '/api/auth/internal/activity', {
        body: { events: batch.slice(start, start + 1000) },
      });
      expect(answer.status).toBe(204);
    }
  };
  const loadAccounts = async (): Promise<RefAccount[]> => {
    const list = await viaGateway<{ items: ManagedUser[] }>(
      'GET',
      '/api/auth/admin/users?pageSize=100',
      adminToken,
    );
    expect(list.status).toBe(200);
    return list.body.items.map((user) => ({
      id: user.id,
      username: user.username,
      displayName: user.displayName,
      role: user.role,
      disabled: user.disabled,
      createdAt: user.createdAt,
    }));
  };
  const reference = () => new ReferenceReport(events, accounts);
  const asRef = (batch: readonly ActivityEvent[], names: Map<string, string>, offset: number): RefEvent[] =>
    batch.map((event, index) => ({
      ...event,
      seq: offset + index,
      t: Date.parse(event.occurredAt),
      username: names.get(event.userId)!,
    }));

  beforeAll(async () => {
    install = await startTestInstall(
      [createConfigComponent, createUserComponent, createGatewayComponent, createFrontendComponent],
      backend.env,
      { clock },
    );
    client = new UserServiceClient(install);
    await waitFor(async () =>
      (await viaGateway('GET', '/api/auth/setup/status')).status === 200 ? true : undefined,
    );
    expect((await viaGateway('POST', '/api/auth/setup/admin', undefined, ADMIN)).status).toBe(201);
    adminToken = await login(ADMIN.username, ADMIN.password);
    adminIdentity = await client.identityOf(adminToken, 'admin');

    // Accounts: viewers, two console users (permission `user`, and `audit` only), a disabled one, and one that
    // is deleted after it played (its history stays).
    const names = new Map<string, string>();
    for (let index = 0; index < 14; index += 1) {
      const username = `${index % 3 === 0 ? 'V' : 'v'}iewer.${String(index).padStart(2, '0')}`;
      const id = await createUser(username, { displayName: `Viewer ${index}` });
      names.set(id, username);
    }
    names.set(await createUser('report.reader', { permissions: ['user'] }), 'report.reader');
    names.set(await createUser('auditor', { permissions: ['audit'] }), 'auditor');
    const disabled = await createUser('sleeper');
    names.set(disabled, 'sleeper');
    expect(
      (await viaGateway('PATCH', `/api/auth/admin/users/${disabled}`, adminToken, { disabled: true })).status,
    ).toBe(200);
    deletedUserId = await createUser('gone.user');
    names.set(deletedUserId, 'gone.user');
    names.set(adminIdentity.userId, ADMIN.username);
    // Some accounts never play: they are inactive in every window.
    userIds = [...names.keys()].filter((id) => !['auditor', 'sleeper'].includes(names.get(id)!));

    const log = generateLog(random, {
      userIds,
      from: startedAt - 130 * DAY,
      to: startedAt + 2 * HOUR,
      sessions: 1400,
    });
    mediaIds = log.media.map((item) => item.id);
    await insert(log.events);
    events = asRef(log.events, names, 0);
    expect((await viaGateway('DELETE', `/api/auth/admin/users/${deletedUserId}`, adminToken)).status).toBe(
      204,
    );
    accounts = await loadAccounts();
    expect(accounts.some((account) => account.id === deletedUserId)).toBe(false);
  }, 120_000);

  afterAll(async () => {
    await install?.stop();
    await backend.cleanup();
  });

  /** A random window: a preset at the frozen now, or a custom window with edges on Shanghai midnights, 21:00, … */
  function randomWindow(): { params: Record<string, string | undefined>; window: RefWindow } {
    const mediaType = random.pick(MEDIA_TYPES);
    const userId = random.chance(0.25) ? random.pick([...userIds, deletedUserId]) : undefined;
    if (random.chance(0.25)) {
      const preset = random.pick(PRESETS);
      const { from, to } = refPresetWindow(preset, clock.now());
      return { params: { preset, mediaType, userId }, window: { preset, from, to, mediaType, userId } };
    }
    const span = random.pick([
      random.int(1, DAY - 1),
      3 * HOUR,
      DAY,
      DAY + 1,
      random.int(DAY + 1, 3 * DAY),
      7 * DAY,
      random.int(28, 40) * DAY,
      random.int(60, 120) * DAY,
    ]);
    let from = startedAt - random.int(0, 125) * DAY - random.int(0, DAY);
    const snap = random.int(0, 3);
    const localMidnight = Math.floor((from + 8 * HOUR) / DAY) * DAY - 8 * HOUR;
    if (snap === 0) from = localMidnight;
    else if (snap === 1)
      from = localMidnight - 3 * HOUR; // 21:00 the day before
    else if (snap === 2) from = Math.floor(from / (30 * 60_000)) * 30 * 60_000;
    const to = from + span;
    const offset = random.pick(['+08:00', 'Z', '-05:00']);
    const format = (ms: number) => {
      const shift = offset === 'Z' ? 0 : offset === '+08:00' ? 8 * HOUR : -5 * HOUR;
      return new Date(ms + shift).toISOString().replace('Z', offset);
    };
    return {
      params: { preset: 'custom', from: format(from), to: format(to), mediaType, userId },
      window: { preset: 'custom', from, to, mediaType, userId },
    };
  }

  /** Every endpoint for one window must equal the reference. */
  async function compareWindow(params: Record<string, string | undefined>, window: RefWindow): Promise<void> {
    const ref = reference();
    const label = JSON.stringify(params);
    const granularity = random.pick(GRANULARITIES);
    const sort = random.pick(['watchMs', 'playCount', 'bytes'] as const);
    const pageSize = random.pick([10, 20, 50, 100]);
    const page = random.int(1, 3);

    expect(await ok('overview', params), label).toEqual(ref.overview(window));
    expect(await ok('timeline', { ...params, granularity }), label).toEqual(
      ref.timeline(window, granularity),
    );
    const concurrencyGranularity = random.pick(GRANULARITIES);
    expect(await ok('concurrent', { ...params, granularity: concurrencyGranularity }), label).toEqual(
      ref.concurrent(window, concurrencyGranularity),
    );
    expect(await ok('heatmap', params), label).toEqual(ref.heatmap(window));
    expect(await ok('top-users', { ...params, sort }), label).toEqual(ref.topUsers(window, sort, 20));
    expect(await ok('top-media', { ...params, sort, limit: 7 }), label).toEqual(
      ref.topMedia(window, sort, 7),
    );
    expect(await ok('inactive-users', { ...params, page, pageSize: 10 }), label).toEqual(
      ref.inactiveUsers(window, page, 10),
    );
    expect(await ok('devices', params), label).toEqual(ref.devices(window));
    const mediaId = random.pick(mediaIds);
    expect(await ok('media-watchers', { ...params, mediaId, pageSize, page: 1 }), label).toEqual(
      ref.mediaWatchers(window, mediaId, 1, pageSize),
    );
    const selector = random.chance(0.5)
      ? { platform: random.pick<ReportPlatform>(REPORT_PLATFORMS) }
      : random.chance(0.5)
        ? { client: 'Infuse' }
        : { client: 'Emby for Android', deviceName: 'Pixel 8' };
    expect(await ok('device-users', { ...params, ...selector, pageSize: 10, page: 1 }), label).toEqual(
      ref.deviceUsers(window, selector, 1, 10),
    );
  }

  it('answers every endpoint exactly like the reference for random windows, filters and granularities', async () => {
    for (let round = 0; round < WINDOWS; round += 1) {
      const { params, window } = randomWindow();
      await compareWindow(params, window);
    }
  }, 120_000);

  it('counts events right on Shanghai midnight into the new day and one millisecond before into the old', async () => {
    const userId = userIds[0]!;
    const midnight = shanghai('2023-11-01T00:00:00.000'); // a month edge, Wednesday
    const base = { userId, client: 'Kodi', deviceName: 'edge', userAgent: 'Kodi/20', mediaId: 'edge-item' };
    const make = (
      at: number,
      eventType: 'start' | 'progress' | 'stop',
      durationMs: number,
      sessionId: string,
    ) =>
      ({
        eventId: randomUUID(),
        eventType,
        occurredAt: new Date(at).toISOString(),
        sessionId,
        clientIp: '198.51.100.1',
        mediaType: 'movie',
        mediaName: 'Edge',
        seriesName: null,
        durationMs,
        bytesDelta: durationMs * 10,
        positionSec: durationMs / 1000,
        runtimeSec: 100,
        nodeId: 'n',
        endpointId: null,
        deviceId: 'edge-id',
        playMethod: 'DirectPlay',
        result: null,
        reason: null,
        extras: {},
        ...base,
      }) satisfies ActivityEvent;
    const batch = [
      make(midnight - 1, 'start', 0, 'edge-a'),
      make(midnight, 'stop', 7, 'edge-a'),
      make(midnight, 'start', 0, 'edge-b'),
      make(midnight + 30 * 60_000 - 1, 'progress', 11, 'edge-b'),
      make(midnight + 30 * 60_000, 'stop', 13, 'edge-b'),
    ];
    await insert(batch);
    events = [
      ...events,
      ...asRef(batch, new Map([[userId, accounts.find((a) => a.id === userId)!.username]]), events.length),
    ];
    const ref = reference();
    for (const granularity of ['day', 'week', 'month', 'hour']) {
      const window: RefWindow = {
        preset: 'custom',
        from: midnight - 2 * DAY,
        to: midnight + 2 * DAY,
        userId,
      };
      const params = {
        preset: 'custom',
        from: '2023-10-30T00:00:00+08:00',
        to: '2023-11-03T00:00:00+08:00',
        userId,
      };
      const timeline = (await ok('timeline', { ...params, granularity })) as {
        buckets: { at: string; watchMs: number }[];
      };
      expect(timeline).toEqual(ref.timeline(window, granularity));
      if (granularity === 'day') {
        expect(timeline.buckets.map((bucket) => [bucket.at, bucket.watchMs])).toEqual([
          ['2023-10-30T00:00:00.000+08:00', 0],
          ['2023-10-31T00:00:00.000+08:00', 0],
          ['2023-11-01T00:00:00.000+08:00', 7 + 11 + 13],
          ['2023-11-02T00:00:00.000+08:00', 0],
        ]);
      }
      if (granularity === 'month') {
        expect(timeline.buckets.map((bucket) => bucket.at)).toEqual([
          '2023-10-01T00:00:00.000+08:00',
          '2023-11-01T00:00:00.000+08:00',
        ]);
      }
      if (granularity === 'week') {
        // 2023-10-30 is a Monday.
        expect(timeline.buckets.map((bucket) => bucket.at)).toEqual(['2023-10-30T00:00:00.000+08:00']);
      }
    }
    // Half hours of the day of the edge: a window of 3 hours is always halfHour.
    const window: RefWindow = { preset: 'custom', from: midnight - HOUR, to: midnight + 2 * HOUR, userId };
    const params = {
      preset: 'custom',
      from: '2023-10-31T23:00:00+08:00',
      to: '2023-11-01T02:00:00+08:00',
      userId,
    };
    expect(await ok('timeline', { ...params, granularity: 'month' })).toEqual(ref.timeline(window, 'month'));
    expect(await ok('concurrent', params)).toEqual(ref.concurrent(window, undefined));
    const concurrent = (await ok('concurrent', params)) as {
      peak: number;
      buckets: { at: string; peak: number }[];
    };
    // edge-a ends at the instant edge-b starts: both play at midnight.
    expect(concurrent.peak).toBe(2);
    expect(await ok('overview', params)).toEqual(ref.overview(window));
    expect(await ok('heatmap', params)).toEqual(ref.heatmap(window));
  });

  it('answers many requests at once, each over its own consistent snapshot', async () => {
    const ref = reference();
    const windows = Array.from({ length: 12 }, () => randomWindow());
    const answers = await Promise.all([
      ...windows.map(({ params }) => ok('overview', params)),
      ...userIds.slice(0, 4).map((userId) => ok(`user/${userId}`, { range: '90d' })),
    ]);
    windows.forEach(({ window }, index) => expect(answers[index]).toEqual(ref.overview(window)));
    userIds
      .slice(0, 4)
      .forEach((userId, index) =>
        expect(comparable(answers[windows.length + index])).toEqual(
          comparable(ref.user(userId, '90d', clock.now())),
        ),
      );
  });

  it('resolves the eight presets in Shanghai time, also at the edges of a day', async () => {
    const instants = [
      shanghai('2024-03-01T00:00:00.000'),
      shanghai('2024-03-01T00:00:00.001'),
      shanghai('2024-02-29T23:59:59.999'),
      shanghai('2024-03-10T21:00:00.000'),
      shanghai('2024-01-01T08:30:00.000'),
      startedAt,
      startedAt - 17 * DAY + 5 * HOUR,
    ];
    // Around a Shanghai midnight and 21:00 within the generated log.
    const midnight = Math.floor((startedAt - 10 * DAY + 8 * HOUR) / DAY) * DAY - 8 * HOUR;
    instants.push(midnight, midnight + 1, midnight - 1, midnight - 3 * HOUR, midnight + DAY - 30 * 60_000);
    try {
      for (const now of instants) {
        clock.time = now;
        for (const preset of PRESETS) {
          const { from, to } = refPresetWindow(preset, now);
          const window: RefWindow = { preset, from, to };
          const answer = (await ok('overview', { preset })) as { range: unknown };
          expect(answer, `${preset} at ${new Date(now).toISOString()}`).toEqual(reference().overview(window));
          const timeline = (await ok('timeline', { preset, granularity: 'day' })) as { granularity: string };
          expect(timeline).toEqual(reference().timeline(window, 'day'));
        }
      }
      // Spot checks of the definitions, at 2024-03-01 00:00:00.001 Shanghai.
      clock.time = shanghai('2024-03-01T00:00:00.001');
      const range = async (preset: string) =>
        ((await ok('overview', { preset })) as { range: Record<string, unknown> }).range;
      expect(await range('lastNight')).toMatchObject({
        from: '2024-02-29T21:00:00.000+08:00',
        to: '2024-03-01T00:00:00.000+08:00',
        previousFrom: '2024-02-29T18:00:00.000+08:00',
        previousTo: '2024-02-29T21:00:00.000+08:00',
      });
      expect(await range('today')).toMatchObject({
        from: '2024-03-01T00:00:00.000+08:00',
        to: '2024-03-01T00:00:00.001+08:00',
        spanMs: 1,
      });
      expect(await range('yesterday')).toMatchObject({
        from: '2024-02-29T00:00:00.000+08:00',
        to: '2024-03-01T00:00:00.000+08:00',
        previousFrom: '2024-02-28T00:00:00.000+08:00',
      });
      expect(await range('last24h')).toMatchObject({ from: '2024-02-29T00:00:00.001+08:00', spanMs: DAY });
      expect(await range('last7d')).toMatchObject({ from: '2024-02-23T00:00:00.001+08:00', spanMs: 7 * DAY });
      expect(await range('last90d')).toMatchObject({ from: '2023-12-02T00:00:00.001+08:00' });
      // Exactly at midnight, today is an empty window.
      clock.time = shanghai('2024-03-01T00:00:00.000');
      const empty = (await ok('timeline', { preset: 'today' })) as {
        granularity: string;
        buckets: unknown[];
      };
      expect(empty).toMatchObject({ granularity: 'halfHour', buckets: [] });
    } finally {
      clock.time = startedAt;
    }
  });

  it('applies the granularity span rule and names the effective granularity', async () => {
    const from = '2024-03-01T00:00:00+08:00';
    const cases: [string, string | undefined, string][] = [
      ['2024-03-01T23:59:59.999+08:00', 'month', 'halfHour'],
      ['2024-03-01T03:00:00+08:00', undefined, 'halfHour'],
      ['2024-03-02T00:00:00+08:00', 'day', 'hour'],
      ['2024-03-02T00:00:00+08:00', 'halfHour', 'hour'],
      ['2024-03-02T00:00:00.001+08:00', 'halfHour', 'hour'],
      ['2024-03-02T00:00:00.001+08:00', 'day', 'day'],
      ['2024-03-09T00:00:00+08:00', 'week', 'week'],
      ['2024-05-09T00:00:00+08:00', 'month', 'month'],
      ['2024-03-09T00:00:00+08:00', 'fortnight', 'hour'],
      ['2024-03-09T00:00:00+08:00', '', 'hour'],
      ['2024-03-09T00:00:00+08:00', undefined, 'hour'],
    ];
    for (const [to, granularity, expected] of cases) {
      for (const path of ['timeline', 'concurrent']) {
        const answer = (await ok(path, { preset: 'custom', from, to, granularity })) as {
          granularity: string;
        };
        expect(answer.granularity, `${path} ${to} ${granularity}`).toBe(expected);
        expect(refGranularity(Date.parse(to) - Date.parse(from), granularity)).toBe(expected);
      }
    }
  });

  it('analyses single users over 30, 90, 180 and 365 days like the reference', async () => {
    const ref = reference();
    for (const userId of [...userIds.slice(0, 6), deletedUserId]) {
      for (const range of ['30d', '90d', '180d', '365d'] as const) {
        const answer = await ok(`user/${userId}`, { range });
        expect(comparable(answer), `${userId} ${range}`).toEqual(
          comparable(ref.user(userId, range, clock.now())),
        );
      }
    }
    const idle = accounts.find((account) => account.username === 'auditor')!;
    expect(comparable(await ok(`user/${idle.id}`))).toEqual(
      comparable(ref.user(idle.id, '30d', clock.now())),
    );
    const deleted = (await ok(`user/${deletedUserId}`)) as { user: unknown };
    expect(deleted.user).toMatchObject({ username: 'gone.user', deleted: true, role: null });
    expect((await report(`user/${randomUUID()}`)).status).toBe(404);
    expect((await report('user/not-a-uuid')).status).toBe(400);
    expect((await report(`user/${userIds[0]}`, { range: '7d' })).status).toBe(400);
  });

  it('refuses bad input with 400 VALIDATION_FAILED', async () => {
    const bad: [string, Record<string, string>][] = [
      ['overview', { preset: 'custom', from: '2024-03-02T00:00:00+08:00', to: '2024-03-01T00:00:00+08:00' }],
      ['overview', { preset: 'custom', from: '2024-03-01T00:00:00+08:00', to: '2024-03-01T00:00:00+08:00' }],
      ['overview', { preset: 'custom', from: '2023-01-01T00:00:00+08:00', to: '2024-03-01T00:00:00+08:00' }],
      ['overview', { preset: 'custom', from: '2024-03-01T00:00:00', to: '2024-03-02T00:00:00+08:00' }],
      ['overview', { preset: 'custom', from: '2024-03-01T00:00:00+08:00' }],
      ['overview', { preset: 'today', from: '2024-03-01T00:00:00+08:00' }],
      ['overview', { preset: 'lastYear' }],
      ['overview', { mediaType: 'book' }],
      ['overview', { userId: 'nobody' }],
      ['overview', { colour: 'red' }],
      ['top-users', { sort: 'name' }],
      ['top-users', { limit: '0' }],
      ['inactive-users', { pageSize: '30' }],
      ['inactive-users', { page: '0' }],
      ['media-watchers', {}],
      ['device-users', {}],
      ['device-users', { client: 'Kodi', platform: 'tv' }],
      ['device-users', { deviceName: 'x', platform: 'tv' }],
      ['device-users', { platform: 'amiga' }],
    ];
    for (const [path, params] of bad) {
      const answer = await report<ErrorBody>(path, params);
      expect(answer.status, `${path} ${JSON.stringify(params)}`).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_FAILED');
    }
    // 400 days is the most a custom window may span.
    const longest = await report('overview', {
      preset: 'custom',
      from: '2023-01-01T00:00:00+08:00',
      to: '2024-02-05T00:00:00+08:00',
    });
    expect(longest.status).toBe(200);
  });

  it('lets `reports` and `user` holders in through the gateway, and nobody else', async () => {
    const reader = await login('report.reader');
    const auditor = await login('auditor');
    for (const path of [`${REPORTS}/overview`, `${REPORTS}/devices?preset=today`, RETENTION]) {
      expect((await viaGateway('GET', path, adminToken)).status, path).toBe(200);
      expect((await viaGateway('GET', path, reader)).status, path).toBe(200);
      expect((await viaGateway('GET', path, auditor)).status, path).toBe(403);
      expect((await viaGateway('GET', path)).status, path).toBe(401);
    }
    expect((await viaGateway('PUT', RETENTION, auditor, { days: 30 })).status).toBe(403);
    // The service itself refuses an identity without either permission.
    const outsider = await client.call('GET', `${REPORTS}/overview`, {
      identity: { ...adminIdentity, role: 'user', permissions: ['audit'] },
    });
    expect(outsider.status).toBe(403);
    expect((await client.call('GET', `${REPORTS}/overview`, { serviceToken: false })).status).toBe(401);
  });

  it('shows new events at once', async () => {
    const window: RefWindow = { preset: 'last24h', from: clock.now() - DAY, to: clock.now() };
    const before = await ok('overview', { preset: 'last24h' });
    expect(before).toEqual(reference().overview(window));
    const userId = userIds[1]!;
    const fresh: ActivityEvent = {
      eventId: randomUUID(),
      userId,
      eventType: 'start',
      occurredAt: new Date(clock.now() - 1).toISOString(),
      sessionId: `fresh-${randomUUID()}`,
      clientIp: '198.51.100.7',
      userAgent: 'Kodi/20',
      mediaId: 'fresh-item',
      mediaType: 'movie',
      mediaName: 'Fresh',
      seriesName: null,
      durationMs: 1234,
      bytesDelta: 5678,
      positionSec: 1,
      runtimeSec: 10,
      nodeId: 'n',
      endpointId: null,
      client: 'Kodi',
      deviceName: 'box',
      deviceId: 'box',
      playMethod: 'DirectPlay',
      result: null,
      reason: null,
      extras: {},
    };
    await insert([fresh]);
    events = [
      ...events,
      ...asRef([fresh], new Map([[userId, accounts.find((a) => a.id === userId)!.username]]), events.length),
    ];
    const after = (await ok('overview', { preset: 'last24h' })) as {
      cards: { playCount: { current: number } };
    };
    expect(after).toEqual(reference().overview(window));
    expect(after.cards.playCount.current).toBe(
      (before as { cards: { playCount: { current: number } } }).cards.playCount.current + 1,
    );
    expect(await ok('top-media', { preset: 'last24h', limit: 100 })).toEqual(
      reference().topMedia(window, 'watchMs', 100),
    );
  });

  it('stays exact when a session changes item and device and its events arrive out of order', async () => {
    // The sessions rollup keeps one row per session, item and device: this session has two, both crossing the
    // windows below, and its batches arrive newest first, the older one reversed and then once more.
    const userId = userIds[3]!;
    const sessionId = `rollup-${randomUUID()}`;
    const began = clock.now() - 5 * HOUR;
    const make = (step: number): ActivityEvent => {
      const first = step < 3;
      return {
        eventId: randomUUID(),
        userId,
        eventType: step === 0 ? 'start' : step === 5 ? 'stop' : 'progress',
        occurredAt: new Date(began + step * 10 * 60_000).toISOString(),
        sessionId,
        clientIp: '198.51.100.9',
        userAgent: first ? 'Infuse/7.6 (iPhone; iOS 17)' : 'Kodi/20.2 (X11; Linux x86_64)',
        mediaId: first ? 'rollup-a' : 'rollup-b',
        mediaType: first ? 'movie' : 'episode',
        mediaName: first ? 'Rollup A' : 'Rollup B',
        seriesName: first ? null : 'Rollup',
        durationMs: step === 0 ? 0 : 600_000 - step,
        bytesDelta: step * 1_000_003,
        positionSec: step * 600,
        runtimeSec: 7200,
        nodeId: 'n',
        endpointId: null,
        client: first ? 'Infuse' : 'Kodi',
        deviceName: first ? 'phone' : 'living room',
        deviceId: first ? 'phone' : 'box',
        playMethod: 'DirectPlay',
        result: null,
        reason: null,
        extras: {},
      };
    };
    const older = [0, 1, 2].map(make);
    const newer = [3, 4, 5].map(make);
    await insert(newer);
    await insert([...older].reverse());
    await insert(older);
    const names = new Map([[userId, accounts.find((a) => a.id === userId)!.username]]);
    events = [...events, ...asRef([...older, ...newer], names, events.length)];
    const cut = (step: number) => began + step * 10 * 60_000 + 5 * 60_000;
    for (const [from, to, mediaType] of [
      [cut(0), cut(4), undefined],
      [cut(1), cut(2), undefined],
      [cut(2), cut(6), 'episode'],
      [began, cut(3), 'movie'],
    ] as const) {
      const window: RefWindow = { preset: 'custom', from, to, mediaType };
      const params = {
        preset: 'custom',
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        mediaType,
      };
      await compareWindow(params, window);
      for (const selector of [
        { client: 'Kodi' },
        { platform: 'ios' as const },
        { platform: 'linux' as const },
      ]) {
        expect(await ok('device-users', { ...params, ...selector })).toEqual(
          reference().deviceUsers(window, selector, 1, 20),
        );
      }
    }
  });

  it('reads the time rollups exactly: partial hours at both edges, inside one hour, whole hours and days', async () => {
    // timeline, heatmap and the single-user analysis read whole days and hours from the rollups and only the
    // partial hours at the edges from the log: every kind of edge, each filter, every granularity.
    const midnight = Math.floor((startedAt - 20 * DAY + 8 * HOUR) / DAY) * DAY - 8 * HOUR;
    const MINUTE = 60_000;
    const windows: [number, number][] = [
      [midnight - 50 * MINUTE + 7, midnight + 3 * DAY + 5 * HOUR + 13 * MINUTE], // partial hours at both edges
      [midnight + 10 * HOUR + 5 * MINUTE, midnight + 10 * HOUR + 55 * MINUTE], // inside one hour
      [midnight + 10 * HOUR + 30 * MINUTE, midnight + 11 * HOUR + 30 * MINUTE], // across an hour, none whole
      [midnight + 3 * HOUR, midnight + 2 * DAY + 21 * HOUR], // whole hours, no whole day at the edges
      [midnight - 7 * DAY, midnight + 7 * DAY], // whole days
      [midnight, midnight + DAY], // exactly one day (hour buckets)
      [midnight - 33 * DAY, midnight + 7 * DAY], // whole days over a month edge
      [midnight - 1, midnight + DAY + 1], // a whole day and one millisecond on either side
    ];
    const ref = reference();
    for (const [from, to] of windows) {
      for (const filter of [
        {},
        { mediaType: random.pick(MEDIA_TYPES.filter((type) => type !== undefined)) },
        { userId: random.pick(userIds) },
      ]) {
        const window: RefWindow = { preset: 'custom', from, to, ...filter };
        const params = {
          preset: 'custom',
          from: new Date(from).toISOString(),
          to: new Date(to).toISOString(),
          ...filter,
        };
        const label = JSON.stringify(params);
        for (const granularity of ['halfHour', 'hour', 'day', 'week', 'month']) {
          expect(await ok('timeline', { ...params, granularity }), `${label} ${granularity}`).toEqual(
            ref.timeline(window, granularity),
          );
        }
        expect(await ok('heatmap', params), label).toEqual(ref.heatmap(window));
      }
    }
    // The single-user analysis ends now: at a Shanghai midnight (whole days), on an hour, and inside an hour.
    try {
      for (const now of [midnight, midnight + 5 * HOUR, midnight + 5 * HOUR + 17 * MINUTE + 3]) {
        clock.time = now;
        for (const userId of [...userIds.slice(0, 3), deletedUserId]) {
          for (const range of ['30d', '90d'] as const) {
            expect(comparable(await ok(`user/${userId}`, { range })), `${userId} ${range} ${now}`).toEqual(
              comparable(ref.user(userId, range, now)),
            );
          }
        }
      }
    } finally {
      clock.time = startedAt;
    }
  });

  it('keeps the retention setting within its bounds; cleanup deletes only when it runs', async () => {
    const initial = await viaGateway('GET', RETENTION, adminToken);
    expect(initial).toEqual({
      status: 200,
      body: { days: 90, min: 7, max: 3650, default: 90, shortcuts: [30, 90, 180, 365, 730] },
    });
    for (const body of [
      { days: 6 },
      { days: 3651 },
      { days: 30.5 },
      { days: '30' },
      {},
      { days: 30, extra: 1 },
    ]) {
      const answer = await viaGateway<ErrorBody>('PUT', RETENTION, adminToken, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_FAILED');
    }
    expect((await viaGateway('GET', RETENTION, adminToken)).body).toMatchObject({ days: 90 });

    const window: RefWindow = { preset: 'last90d', from: clock.now() - 90 * DAY, to: clock.now() };
    const everything: RefWindow = {
      preset: 'custom',
      from: clock.now() - 200 * DAY,
      to: clock.now() + DAY,
    };
    const everythingParams = {
      preset: 'custom',
      from: new Date(everything.from).toISOString(),
      to: new Date(everything.to).toISOString(),
    };
    const stored = async () =>
      ((await ok('overview', everythingParams)) as { cards: { watchMs: { current: number } } }).cards.watchMs
        .current;
    const inEverything = (list: readonly RefEvent[]) =>
      list
        .filter((event) => event.t >= everything.from && event.t < everything.to)
        .reduce((sum, event) => sum + event.durationMs, 0);
    const total = await stored();
    expect(total).toBe(inEverything(events));

    const set = await viaGateway('PUT', RETENTION, adminToken, { days: 7 });
    expect(set).toEqual({
      status: 200,
      body: { days: 7, min: 7, max: 3650, default: 90, shortcuts: [30, 90, 180, 365, 730] },
    });
    expect((await viaGateway('GET', RETENTION, adminToken)).body).toMatchObject({ days: 7 });
    // Nothing is deleted until the task runs.
    expect(await stored()).toBe(total);
    expect(await ok('overview', { preset: 'last90d' })).toEqual(reference().overview(window));

    const audit = await viaGateway<{ items: { action: string; details: unknown }[] }>(
      'GET',
      '/api/auth/admin/audit-log?action=settings.activity-log-retention',
      adminToken,
    );
    expect(audit.body.items[0]).toMatchObject({
      action: 'settings.activity-log-retention',
      details: { before: { days: 90 }, after: { days: 7 } },
    });

    const scheduler = install.context.schedulers.get('user')!;
    expect(scheduler.status().some((task) => task.name === 'activity-log.cleanup')).toBe(true);
    expect(await scheduler.runNow('activity-log.cleanup')).toBe('ran');
    const cutoff = clock.now() - 7 * DAY;
    const kept = events.filter((event) => event.t >= cutoff);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(events.length);
    events = kept;
    expect(await stored()).toBe(inEverything(kept));
    // The deletes show at once in every answer.
    expect(await ok('overview', { preset: 'last90d' })).toEqual(reference().overview(window));
    expect(await ok('devices', { preset: 'last30d' })).toEqual(
      reference().devices({ preset: 'last30d', from: clock.now() - 30 * DAY, to: clock.now() }),
    );
    await compareWindow(
      { preset: 'last7d' },
      { preset: 'last7d', from: clock.now() - 7 * DAY, to: clock.now() },
    );
    expect(comparable(await ok(`user/${userIds[2]}`, { range: '90d' }))).toEqual(
      comparable(reference().user(userIds[2]!, '90d', clock.now())),
    );
    // A second run finds nothing more to delete.
    expect(await scheduler.runNow('activity-log.cleanup')).toBe('ran');
    expect(await stored()).toBe(inEverything(kept));
  });
});
