import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceDatabase } from '../../../../src/platform/db/index.js';
import { ActivityLogRepository } from '../../../../src/services/user/activity/activity-log.repository.js';
import {
  reportRepositories,
  type ReportRepositories,
} from '../../../../src/services/user/reports/reports.repository.js';
import type { UserDatabase } from '../../../../src/services/user/user.db.js';
import { userMigrations } from '../../../../src/services/user/migrations/index.js';
import { testBackends } from '../../../support/databases.js';
import { activityRow } from './activity-row.js';

const START = Date.parse('2024-03-01T00:00:00.000+08:00');
const MINUTE = 60_000;

/*
 * Migration V010: events keep the platform the user service classified (column `platform`); events stored before
 * it (null) keep the V007 rule. The sessions rollup and the devices figures follow both, also when the retention
 * task deletes part of a session that has events of either kind.
 */
describe.each(testBackends())('the stored platform on $label', (backend) => {
  let database: ServiceDatabase<UserDatabase>;
  let activity: ActivityLogRepository;
  let reports: ReportRepositories;
  const user = randomUUID();
  // An HTTP library: the old patterns took the letters "ios" in "axios" for iOS, the parser does not.
  const fields = { userId: user, sessionId: 's-1', mediaType: 'movie' as const, client: '', deviceName: '' };
  const agent = 'axios/1.7.2';

  beforeAll(async () => {
    database = await backend.open<UserDatabase>('svc_user', userMigrations);
    activity = new ActivityLogRepository(database.db);
    reports = reportRepositories(database.db, database.backend);
  }, 120_000);

  afterAll(async () => {
    await backend.cleanup();
  });

  const rollup = () =>
    sql<{ platform: string; plays: string | number; watch_ms: string | number }>`
      SELECT platform, plays, watch_ms FROM activity_session WHERE user_id = ${user} ORDER BY platform`
      .execute(database.db)
      .then((result) => result.rows.map((row) => [row.platform, Number(row.plays), Number(row.watch_ms)]));

  it('keeps the old rule for events stored before the column, the stored platform for new ones', async () => {
    const legacy = activityRow({
      ...fields,
      eventId: randomUUID(),
      t: START,
      eventType: 'start',
      userAgent: agent,
    });
    expect(await activity.insertMany([{ ...legacy, platform: null }])).toBe(1);
    const current = activityRow({ ...fields, eventId: randomUUID(), t: START + MINUTE, userAgent: agent });
    expect(current.platform).toBe('other');
    expect(await activity.insertMany([current])).toBe(1);

    expect(await rollup()).toEqual([
      ['ios', 1, 1_000],
      ['other', 0, 1_000],
    ]);
    const window = { from: new Date(START - MINUTE), to: new Date(START + 10 * MINUTE), userId: user };
    const platforms = (await reports.devices.distribution(window))
      .filter((row) => row.kind === 'platform')
      .map((row) => [row.platform, row.sessions]);
    expect(platforms.sort()).toEqual([
      ['ios', 1],
      ['other', 1],
    ]);
  });

  it('recomputes the rollup from both kinds of events when some are deleted', async () => {
    const later = activityRow({ ...fields, eventId: randomUUID(), t: START + 2 * MINUTE, userAgent: agent });
    await activity.insertMany([{ ...later, platform: null }]);
    expect(await rollup()).toEqual([
      ['ios', 1, 2_000],
      ['other', 0, 1_000],
    ]);
    await database.db
      .deleteFrom('activity_log')
      .where('user_id', '=', user)
      .where('occurred_at', '<', new Date(START + MINUTE))
      .execute();
    expect(await rollup()).toEqual([
      ['ios', 0, 1_000],
      ['other', 0, 1_000],
    ]);
  });
});
