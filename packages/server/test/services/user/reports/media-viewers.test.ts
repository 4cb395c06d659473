// GET /api/auth/internal/reports/media-viewers: distinct accounts that played an item in the last 24 hours,
// the input of a play-agent's cache popularity rule (docs/vfs-cache.md, "Playback").
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEvent } from '@svc/contracts';
import type { ServiceDatabase } from '../../../../src/platform/db/index.js';
import { createServer, type AppServer } from '../../../../src/platform/http/create-server.js';
import { SERVICE_TOKEN_HEADER } from '../../../../src/platform/service-token.js';
import { registerActivityLogRoutes } from '../../../../src/services/user/activity/activity-log.routes.js';
import { userMigrations } from '../../../../src/services/user/migrations/index.js';
import { registerReportRoutes } from '../../../../src/services/user/reports/reports.routes.js';
import type { UserDatabase } from '../../../../src/services/user/user.db.js';
import { quietLogger, testBackends } from '../../../support/databases.js';
import { ManualClock } from '../support.js';
import { fastHasher, insertPlainUser, userServicesOver } from '../user-services.js';

const SERVICE_TOKEN = 'svc_st_test_token_that_is_long_enough_0123456789';
const NOW = Date.parse('2024-03-06T12:00:00.000Z');
const HOUR = 3_600_000;

function event(userId: string, mediaId: string, hoursAgo: number): ActivityEvent {
  return {
    eventId: randomUUID(),
    userId,
    eventType: 'start',
    occurredAt: new Date(NOW - hoursAgo * HOUR).toISOString(),
    sessionId: randomUUID(),
    clientIp: '198.51.100.23',
    userAgent: 'test',
    mediaId,
    mediaType: 'movie',
    mediaName: mediaId,
    seriesName: null,
    durationMs: 0,
    bytesDelta: 0,
    positionSec: null,
    runtimeSec: null,
    nodeId: 'node-local-play-agent',
    endpointId: null,
    client: 'test',
    deviceName: 'test',
    deviceId: 'dev-1',
    playMethod: 'DirectStream',
    result: null,
    reason: null,
    extras: {},
  };
}

describe.each(testBackends())('media viewer count on $label', (backend) => {
  let database: ServiceDatabase<UserDatabase>;
  let app: AppServer;

  const count = (mediaId: string, token: string | null = SERVICE_TOKEN) =>
    app.inject({
      method: 'GET',
      url: `/api/auth/internal/reports/media-viewers?mediaId=${encodeURIComponent(mediaId)}`,
      headers: token ? { [SERVICE_TOKEN_HEADER]: token } : {},
    });

  beforeAll(async () => {
    database = await backend.open<UserDatabase>('svc_user', userMigrations);
    const clock = new ManualClock(NOW);
    const hasher = fastHasher();
    const services = userServicesOver(database, { clock, hasher });
    const add = (username: string) => insertPlainUser(services, hasher, username, new Date(NOW));
    const [alice, bob, carol] = [await add('alice'), await add('bob'), await add('carol')];
    app = createServer({
      allowUndeclaredRoutes: true,
      serviceToken: SERVICE_TOKEN,
      component: 'user',
      logger: quietLogger(),
    });
    registerActivityLogRoutes(app, services.activity);
    registerReportRoutes(app, services);
    await app.ready();
    const stored = await app.inject({
      method: 'POST',
      url: '/api/auth/internal/activity',
      headers: { [SERVICE_TOKEN_HEADER]: SERVICE_TOKEN },
      payload: {
        events: [
          event(alice, 'item-popular', 1),
          event(alice, 'item-popular', 2),
          event(bob, 'item-popular', 23),
          // Outside the last day, and another item: not counted.
          event(carol, 'item-popular', 25),
          event(carol, 'item-other', 1),
        ],
      },
    });
    expect(stored.statusCode).toBe(204);
  });

  afterAll(async () => {
    await app?.close();
    await backend.cleanup();
  });

  it('counts distinct accounts with an event of the item in the last 24 hours', async () => {
    const answer = await count('item-popular');
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({
      mediaId: 'item-popular',
      viewers: 2,
      since: new Date(NOW - 24 * HOUR).toISOString(),
    });
    expect((await count('item-other')).json()).toMatchObject({ viewers: 1 });
    expect((await count('item-never-played')).json()).toMatchObject({ viewers: 0 });
  });

  it('answers only with the service token', async () => {
    expect((await count('item-popular', null)).statusCode).toBe(401);
  });
});
