import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEventType, ActivityMediaType } from '@svc/contracts';
import type { ServiceDatabase } from '../../../../src/platform/db/index.js';
import { ActivityLogRepository } from '../../../../src/services/user/activity/activity-log.repository.js';
import {
  reportRepositories,
  type ReportRepositories,
  type EventFilter,
} from '../../../../src/services/user/reports/reports.repository.js';
import type { UserDatabase } from '../../../../src/services/user/user.db.js';
import { userMigrations } from '../../../../src/services/user/migrations/index.js';
import { testBackends } from '../../../support/databases.js';
import { refPlatform } from './reference.js';
import { activityRow } from './activity-row.js';
import { Random } from './report-fixtures.js';

/*
 * The devices figures (DevicesRepository.distribution) against plain code, for sessions the sessions rollup keeps
 * as several rows that fall into the same client, platform or device: a session that changes item on one device,
 * device within one client, user agent (so platform) on one device, or user. distribution() counts rollup rows
 * and subtracts the extra rows of such sessions; every session must still count once per group.
 */

const MINUTE = 60_000;
const HOUR = 3_600_000;
const SEED = Number(process.env.REPORT_TEST_SEED ?? 20240306);
const START = Date.parse('2024-03-01T00:00:00.000+08:00');
const USERS = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
const AGENTS = [
  'Kodi/20.2 (X11; Linux x86_64)',
  'Mozilla/5.0 (Windows NT 10.0) Chrome/120',
  'okhttp/4.9 Android TV',
];
const CHANGES = ['none', 'item', 'device', 'agent', 'user', 'client', 'several'] as const;
const STEPS = 6;

interface Ev {
  eventId: string;
  t: number;
  sessionId: string;
  userId: string;
  mediaId: string;
  mediaType: ActivityMediaType;
  client: string;
  deviceName: string;
  userAgent: string;
  eventType: ActivityEventType;
  durationMs: number;
  bytes: number;
}

interface Figures {
  users: number;
  sessions: number;
  playCount: number;
  watchMs: number;
  bytes: number;
}

describe.each(testBackends())('devices of sessions with several rollup rows on $label', (backend) => {
  let database: ServiceDatabase<UserDatabase>;
  let activity: ActivityLogRepository;
  let reports: ReportRepositories;
  const random = new Random(SEED);
  const log: Ev[] = [];

  /** One session of STEPS events 10 minutes apart; from step 3 (some kinds also 2 and 5) its key changes. */
  const session = (index: number): Ev[] => {
    const change = CHANGES[index % CHANGES.length]!;
    const began = START + random.int(0, 48 * HOUR);
    const base = {
      sessionId: `s-${index}-${change}`,
      userId: random.pick(USERS),
      mediaId: `m-${random.int(0, 3)}`,
      mediaType: random.pick<ActivityMediaType>(['movie', 'episode']),
      client: random.pick(['Kodi', 'Emby Web']),
      deviceName: random.pick(['box', 'laptop']),
      userAgent: random.pick(AGENTS),
    };
    return Array.from({ length: STEPS }, (_, step): Ev => {
      const later = step >= 3;
      const key = { ...base };
      if (later && change === 'item') key.mediaId = `${base.mediaId}-next`;
      if (later && change === 'device') key.deviceName = `${base.deviceName}-2`;
      if (later && change === 'agent')
        key.userAgent = AGENTS[(AGENTS.indexOf(base.userAgent) + 1) % AGENTS.length]!;
      if (later && change === 'user') key.userId = USERS[(USERS.indexOf(base.userId) + 1) % USERS.length]!;
      if (later && change === 'client') key.client = base.client === 'Kodi' ? 'Emby Web' : 'Kodi';
      if (change === 'several') {
        // item, then device, then back to the first device with the first item: three rows, two in one device
        if (step === 2 || step === 3) key.mediaId = `${base.mediaId}-next`;
        if (step === 4) key.deviceName = `${base.deviceName}-2`;
      }
      return {
        eventId: randomUUID(),
        t: began + step * 10 * MINUTE,
        ...key,
        eventType: step === 0 ? 'start' : step === STEPS - 1 ? 'stop' : 'progress',
        durationMs: step === 0 ? 0 : 600_000 - random.int(0, 999),
        bytes: random.chance(0.2) ? 0 : random.int(0, 5_000_000_000),
      };
    });
  };

  const row = (ev: Ev) =>
    activityRow({ ...ev, client: ev.client, deviceName: ev.deviceName, userAgent: ev.userAgent });

  /** Per set and group, as `[kind client deviceName platform, figures]` sorted by key. */
  const reference = (filter: EventFilter): [string, Figures][] => {
    const events = log.filter(
      (ev) =>
        ev.t >= filter.from.getTime() &&
        ev.t < filter.to.getTime() &&
        (!filter.mediaType || ev.mediaType === filter.mediaType) &&
        (!filter.userId || ev.userId === filter.userId),
    );
    const groups = new Map<string, Ev[]>();
    const add = (key: unknown[], ev: Ev) => {
      const k = JSON.stringify(key);
      groups.set(k, [...(groups.get(k) ?? []), ev]);
    };
    for (const ev of events) {
      add(['client', ev.client, null, null], ev);
      add(['platform', null, null, refPlatform(ev)], ev);
      add(['device', ev.client, ev.deviceName, null], ev);
    }
    return [...groups]
      .map(([key, list]): [string, Figures] => [
        key,
        {
          users: new Set(list.map((ev) => ev.userId)).size,
          sessions: new Set(list.map((ev) => ev.sessionId)).size,
          playCount: list.filter((ev) => ev.eventType === 'start').length,
          watchMs: list.reduce((sum, ev) => sum + ev.durationMs, 0),
          bytes: list.reduce((sum, ev) => sum + ev.bytes, 0),
        },
      ])
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  };

  const answer = async (filter: EventFilter): Promise<[string, Figures][]> =>
    (await reports.devices.distribution(filter))
      .map(({ kind, client, deviceName, platform, ...figures }): [string, Figures] => [
        JSON.stringify([kind, client, deviceName, platform]),
        figures,
      ])
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

  beforeAll(async () => {
    database = await backend.open<UserDatabase>('svc_user', userMigrations);
    activity = new ActivityLogRepository(database.db);
    reports = reportRepositories(database.db, database.backend);
    const events = Array.from({ length: 70 }, (_, index) => session(index)).flat();
    // Out of order, in a few batches, as play-agents deliver them.
    const shuffled = [...events];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = random.int(0, i);
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    for (let first = 0; first < shuffled.length; first += 100) {
      await activity.insertMany(shuffled.slice(first, first + 100).map(row));
    }
    log.push(...events);
  }, 120_000);

  afterAll(async () => {
    await backend.cleanup();
  });

  it('counts every session once per client, platform and device, whatever rows it has', async () => {
    const whole: EventFilter = { from: new Date(START - HOUR), to: new Date(START + 3 * 24 * HOUR) };
    // The data needs the correction: in every set, some group holds a session with several rollup rows.
    const needy = new Set<string>();
    for (const [kind, group] of [
      ['client', (ev: Ev) => ev.client],
      ['platform', (ev: Ev) => refPlatform(ev)],
      ['device', (ev: Ev) => `${ev.client} ${ev.deviceName}`],
    ] as const) {
      const rows = new Map<string, Set<string>>();
      const sessions = new Map<string, Set<string>>();
      for (const ev of log) {
        const key = [
          ev.sessionId,
          ev.userId,
          ev.mediaId,
          ev.mediaType,
          ev.client,
          ev.deviceName,
          refPlatform(ev),
        ];
        rows.set(group(ev), (rows.get(group(ev)) ?? new Set()).add(JSON.stringify(key)));
        sessions.set(group(ev), (sessions.get(group(ev)) ?? new Set()).add(ev.sessionId));
      }
      for (const [name, keys] of rows) if (keys.size > sessions.get(name)!.size) needy.add(kind);
    }
    expect([...needy].sort()).toEqual(['client', 'device', 'platform']);

    const windows: EventFilter[] = [
      whole,
      { ...whole, mediaType: 'episode' },
      { ...whole, userId: USERS[1] },
    ];
    // Windows that cut sessions, so that edge rows are recomputed from their events inside.
    for (let i = 0; i < 12; i++) {
      const from = START + random.int(0, 40 * HOUR) + random.pick([0, 5 * MINUTE, 25 * MINUTE]);
      windows.push({
        from: new Date(from),
        to: new Date(from + random.pick([35 * MINUTE, 3 * HOUR, 12 * HOUR])),
      });
    }
    for (const filter of windows) expect(await answer(filter)).toEqual(reference(filter));
  });
});
