import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEvent } from '@svc/contracts';
import type { ServiceDatabase } from '../../../src/platform/db/index.js';
import { createServer, type AppServer } from '../../../src/platform/http/create-server.js';
import { SERVICE_TOKEN_HEADER } from '../../../src/platform/service-token.js';
import { registerActivityLogRoutes } from '../../../src/services/user/activity/activity-log.routes.js';
import type { UserDatabase } from '../../../src/services/user/user.db.js';
import { userMigrations } from '../../../src/services/user/migrations/index.js';
import { type UserServices } from '../../../src/services/user/user.component.js';
import { testBackends } from '../../support/databases.js';
import { ManualClock } from './support.js';
import { fastHasher, insertPlainUser, userServicesOver } from './user-services.js';

const anyNumber = expect.any(Number) as unknown as number;
const SERVICE_TOKEN = 'svc_st_test_token_that_is_long_enough_0123456789';

/** An event with every field set to something other than a default. */
function event(userId: string, overrides: Partial<ActivityEvent> = {}): ActivityEvent {
  return {
    eventId: randomUUID(),
    userId,
    eventType: 'progress',
    occurredAt: '2024-03-06T20:15:30.250+08:00',
    sessionId: 'play-session-1',
    clientIp: '198.51.100.23',
    userAgent: 'Infuse/7.7 (AppleTV)',
    mediaId: 'm-episode-42',
    mediaType: 'episode',
    mediaName: 'The Pilot',
    seriesName: 'A Series',
    durationMs: 61_500,
    bytesDelta: 5_000_000_000,
    positionSec: 1234.5,
    runtimeSec: 2700.25,
    nodeId: 'node-local-play-agent',
    endpointId: 'ep-7',
    client: 'Infuse',
    deviceName: 'Living room TV',
    deviceId: 'dev-0001',
    playMethod: 'DirectStream',
    result: 'ok',
    reason: 'user stopped',
    extras: { audioLanguage: 'jpn', subtitles: [1, 2], nested: { a: null } },
    ...overrides,
  };
}

describe.each(testBackends())('activity log on $label', (backend) => {
  let database: ServiceDatabase<UserDatabase>;
  let services: UserServices;
  let app: AppServer;
  const clock = new ManualClock(Date.parse('2024-03-06T12:30:00.000Z'));
  const logLines: Record<string, unknown>[] = [];
  let aliceId: string;
  let bobId: string;

  const post = (body: unknown, serviceToken = true) =>
    app.inject({
      method: 'POST',
      url: '/api/auth/internal/activity',
      headers: serviceToken ? { [SERVICE_TOKEN_HEADER]: SERVICE_TOKEN } : {},
      payload: body as object,
    });
  const count = async () =>
    Number(
      (
        await database.db
          .selectFrom('activity_log')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const rowOf = (eventId: string) =>
    database.db.selectFrom('activity_log').selectAll().where('event_id', '=', eventId).executeTakeFirst();

  beforeAll(async () => {
    database = await backend.open<UserDatabase>('svc_user', userMigrations);
    const logger = pino(
      { level: 'debug' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          logLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          done();
        },
      }),
    );
    const hasher = fastHasher();
    services = userServicesOver(database, { clock, hasher, logger });
    const add = (username: string) => insertPlainUser(services, hasher, username, new Date(clock.now()));
    aliceId = await add('Alice');
    bobId = await add('bob');
    app = createServer({
      allowUndeclaredRoutes: true,
      serviceToken: SERVICE_TOKEN,
      component: 'user',
      logger,
    });
    registerActivityLogRoutes(app, services.activity);
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    await backend.cleanup();
  });

  it('stores every field of every event, with the user name and the time received', async () => {
    const start = event(aliceId, {
      eventType: 'start',
      occurredAt: '2024-03-06T12:00:00Z',
      mediaType: 'movie',
      seriesName: null,
      durationMs: 0,
      bytesDelta: 0,
      positionSec: null,
      runtimeSec: null,
      endpointId: null,
      result: null,
      reason: null,
      extras: {},
    });
    const progress = event(bobId);
    const answer = await post({ events: [start, progress] });
    expect(answer.statusCode, answer.body).toBe(204);
    expect(answer.body).toBe('');

    expect(await rowOf(progress.eventId)).toEqual({
      id: anyNumber,
      event_id: progress.eventId,
      user_id: bobId,
      username: 'bob',
      event_type: 'progress',
      occurred_at: new Date('2024-03-06T12:15:30.250Z'),
      received_at: new Date(clock.now()),
      session_id: 'play-session-1',
      client_ip: '198.51.100.23',
      user_agent: 'Infuse/7.7 (AppleTV)',
      media_id: 'm-episode-42',
      media_type: 'episode',
      media_name: 'The Pilot',
      series_name: 'A Series',
      duration_ms: 61_500,
      bytes_delta: 5_000_000_000,
      position_sec: 1234.5,
      runtime_sec: 2700.25,
      node_id: 'node-local-play-agent',
      endpoint_id: 'ep-7',
      client: 'Infuse',
      device_name: 'Living room TV',
      device_id: 'dev-0001',
      play_method: 'DirectStream',
      result: 'ok',
      reason: 'user stopped',
      extras: { audioLanguage: 'jpn', subtitles: [1, 2], nested: { a: null } },
      // Classified when stored (docs/report.md, Devices): the agent names an Apple TV.
      platform: 'tv',
    });
    expect(await rowOf(start.eventId)).toMatchObject({
      user_id: aliceId,
      username: 'Alice',
      event_type: 'start',
      occurred_at: new Date('2024-03-06T12:00:00.000Z'),
      media_type: 'movie',
      series_name: null,
      duration_ms: 0,
      bytes_delta: 0,
      position_sec: null,
      runtime_sec: null,
      endpoint_id: null,
      result: null,
      reason: null,
      extras: {},
    });
  });

  it('stores a retried batch once, and an event repeated within a batch once', async () => {
    const batch = [event(aliceId), event(bobId), event(aliceId, { eventType: 'stop' })];
    const before = await count();
    expect((await post({ events: batch })).statusCode).toBe(204);
    expect(await count()).toBe(before + 3);
    clock.advance(5_000);
    expect((await post({ events: batch })).statusCode).toBe(204);
    expect(await count()).toBe(before + 3);
    // The first delivery's row stays as it was.
    expect((await rowOf(batch[0]!.eventId))!.received_at).toEqual(new Date(clock.now() - 5_000));

    const fresh = event(bobId);
    const mixed = await post({ events: [batch[1]!, fresh, fresh, { ...fresh, mediaName: 'changed' }] });
    expect(mixed.statusCode).toBe(204);
    expect(await count()).toBe(before + 4);
    expect((await rowOf(fresh.eventId))!.media_name).toBe('The Pilot');
  });

  it('drops the events of unknown users and logs how many', async () => {
    const before = await count();
    logLines.length = 0;
    const known = event(aliceId);
    const strangers = [event(randomUUID()), event(randomUUID())];
    const answer = await post({ events: [strangers[0]!, known, strangers[1]!] });
    expect(answer.statusCode).toBe(204);
    expect(await count()).toBe(before + 1);
    expect(await rowOf(known.eventId)).toBeDefined();
    for (const stranger of strangers) expect(await rowOf(stranger.eventId)).toBeUndefined();
    const line = logLines.find((l) => typeof l.unknownUser === 'number');
    expect(line).toMatchObject({ level: 20, received: 3, inserted: 1, unknownUser: 2, duplicates: 0 });

    // A batch of strangers only is no error either.
    expect((await post({ events: [event(randomUUID())] })).statusCode).toBe(204);
    expect(await count()).toBe(before + 1);
  });

  it('keeps the history of a deleted account', async () => {
    const kept = event(bobId, { eventType: 'stop' });
    expect((await post({ events: [kept] })).statusCode).toBe(204);
    expect(await services.repositories.accounts.delete(bobId)).toBe(true);
    expect(await rowOf(kept.eventId)).toMatchObject({ user_id: bobId, username: 'bob' });
    const after = event(bobId);
    expect((await post({ events: [after] })).statusCode).toBe(204);
    expect(await rowOf(after.eventId)).toBeUndefined();
  });

  it('takes a full batch of 1,000 events in one call, bigger than the default body limit', async () => {
    const before = await count();
    const events = Array.from({ length: 1000 }, (_, i) =>
      event(aliceId, {
        sessionId: `session-${i % 7}`,
        userAgent: `agent ${'x'.repeat(500)}`,
        mediaName: `title ${i} ${'y'.repeat(490)}`,
        occurredAt: new Date(Date.parse('2024-03-01T00:00:00Z') + i * 1000).toISOString(),
      }),
    );
    const body = JSON.stringify({ events });
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const answer = await post({ events });
    expect(answer.statusCode, answer.body).toBe(204);
    expect(await count()).toBe(before + 1000);
  });

  it('refuses more than 1,000 events, an empty batch and malformed events with 400, storing nothing', async () => {
    const before = await count();
    const good = event(aliceId);
    const { extras: _extras, ...noExtras } = good;
    for (const body of [
      { events: Array.from({ length: 1001 }, () => event(aliceId)) },
      { events: [] },
      {},
      { events: [good], extra: 1 },
      { events: [good, noExtras] },
      { events: [good, { ...event(aliceId), unknownField: 1 }] },
      { events: [good, event(aliceId, { eventId: 'not-a-uuid' })] },
      { events: [good, event(aliceId, { eventType: 'pause' as 'stop' })] },
      { events: [good, event(aliceId, { mediaType: 'book' as 'other' })] },
      { events: [good, event(aliceId, { occurredAt: '2024-03-06 12:00' })] },
      { events: [good, event(aliceId, { durationMs: -1 })] },
      { events: [good, event(aliceId, { bytesDelta: 1.5 })] },
      { events: [good, event(aliceId, { sessionId: '' })] },
    ]) {
      const answer = await post(body);
      expect(answer.statusCode, JSON.stringify(body).slice(0, 200)).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
    }
    expect(await count()).toBe(before);
  });

  it('refuses calls without the service token', async () => {
    const before = await count();
    const answer = await post({ events: [event(aliceId)] }, false);
    expect(answer.statusCode).toBe(401);
    expect(await count()).toBe(before);
  });

  it('has the indexes reports need, a unique event id and no foreign key', async () => {
    const indexes = await sql<{ indexdef: string }>`
      SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'activity_log'
    `.execute(database.db);
    const columns = indexes.rows.map((row) => /\((.*)\)$/.exec(row.indexdef)?.[1]);
    expect(columns).toEqual(
      expect.arrayContaining(['occurred_at', 'user_id, occurred_at', 'media_id, occurred_at', 'session_id']),
    );
    expect(indexes.rows.some((row) => /UNIQUE INDEX .*\(event_id\)$/.test(row.indexdef))).toBe(true);
    const foreign = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM information_schema.table_constraints
      WHERE table_schema = current_schema() AND table_name = 'activity_log' AND constraint_type = 'FOREIGN KEY'
    `.execute(database.db);
    expect(foreign.rows[0]!.n).toBe(0);
  });
});
