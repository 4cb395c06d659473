import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ActivityEvent,
  AuditLogResponse,
  BrandingResponse,
  DashboardSessionsResponse,
  MyWebPlaybackResponse,
  UserDetail,
  UserUsageResponse,
} from '@svc/contracts';
import {
  CONSOLE_ADMIN,
  CONSOLE_PASSWORD,
  startConsoleInstall,
  type ConsoleInstall,
} from '../../support/console-install.js';
import { installBackends } from '../../support/install-backends.js';
import { ManualClock } from './support.js';

const ADMIN = CONSOLE_ADMIN;
const PASSWORD = CONSOLE_PASSWORD;
const MINUTE = 60 * 1000;

// The web console's and portal's new user-service endpoints, called like the web app does: through the
// frontend and the gateway, with real tokens.
describe.each(installBackends())('console and portal endpoints of the user service on $label', (backend) => {
  let control: ConsoleInstall;
  // Starts at the real time (tokens, registry), moved by hand where the sessions' 5-minute window matters.
  const clock = new ManualClock(Date.now());
  let adminToken: string;

  const api = <T = unknown>(
    method: string,
    route: string,
    options: { admin?: string; bearer?: string; body?: unknown } = {},
  ) => control.api<T>(method, route, options);
  const admin = <T = unknown>(method: string, route: string, body?: unknown) =>
    control.admin<T>(method, route, body);
  /** A service-to-service call straight to the user service (what the play-agent does). */
  const internal = async (route: string, body: unknown) =>
    (await control.internal('user', 'POST', route, body)).status;
  /** The policy a play-agent fetches for a user (its `webPlayback` is what the play-agent enforces). */
  const playbackPolicy = async (userId: string) =>
    (
      await control.internal<{ webPlayback: boolean }>(
        'user',
        'GET',
        `/api/auth/internal/users/${userId}/playback-policy`,
      )
    ).body;
  const login = (username: string, client: 'console' | 'portal', password = PASSWORD) =>
    control.login(username, client, password);
  const createUser = (username: string, extra: Record<string, unknown> = {}) =>
    control.createUser(username, extra);
  const branding = async () => {
    const answer = await api<BrandingResponse>('GET', '/api/auth/branding');
    expect(answer.status).toBe(200);
    return answer.body;
  };

  beforeAll(async () => {
    control = await startConsoleInstall(backend.env, { clock });
    adminToken = control.adminToken;
  });

  afterAll(async () => {
    await control?.stop();
    await backend.cleanup();
  });

  describe('global web playback switch', () => {
    let settingsToken: string;
    let onUserId: string;
    let offUserId: string;
    let onUserAccess: string;
    let offUserAccess: string;

    beforeAll(async () => {
      await createUser('settings.admin', { permissions: ['settings'] });
      settingsToken = await login('settings.admin', 'console');
      onUserId = await createUser('viewer.on');
      offUserId = await createUser('viewer.off', { webPlayback: false });
      onUserAccess = await login('viewer.on', 'portal');
      offUserAccess = await login('viewer.off', 'portal');
    });

    it('is on by default and shown with the branding before sign-in', async () => {
      expect(await branding()).toEqual({ systemName: 'SVC Media', logoUrl: null, webPlayerEnabled: true });
    });

    it('tells each account what applies to it', async () => {
      expect((await api('GET', '/api/auth/me/web-playback')).status).toBe(401);
      const on = await api<MyWebPlaybackResponse>('GET', '/api/auth/me/web-playback', {
        bearer: onUserAccess,
      });
      expect(on).toMatchObject({ status: 200, body: { system: true, user: true, allowed: true } });
      const off = await api<MyWebPlaybackResponse>('GET', '/api/auth/me/web-playback', {
        bearer: offUserAccess,
      });
      expect(off.body).toEqual({ system: true, user: false, allowed: false });
      // A console admin token works as well (rule `account`).
      const viaConsole = await api('GET', '/api/auth/me/web-playback', { admin: adminToken });
      expect(viaConsole).toMatchObject({ status: 200, body: { system: true, user: true, allowed: true } });
    });

    it('may be switched only by console accounts holding `settings`', async () => {
      const body = { enabled: false };
      expect((await api('PUT', '/api/auth/admin/branding/web-player', { body })).status).toBe(401);
      // A portal access token is no console token.
      expect(
        (await api('PUT', '/api/auth/admin/branding/web-player', { bearer: onUserAccess, body })).status,
      ).toBe(401);
      await createUser('dashboard.only', { permissions: ['dashboard', 'user'] });
      const other = await login('dashboard.only', 'console');
      const refused = await api('PUT', '/api/auth/admin/branding/web-player', { admin: other, body });
      expect(refused).toMatchObject({ status: 403, error: { code: 'FORBIDDEN' } });
      expect((await branding()).webPlayerEnabled).toBe(true);
    });

    it('refuses bodies that are not exactly { enabled: boolean }', async () => {
      for (const body of [{}, { enabled: 'false' }, { enabled: 0 }, { enabled: false, extra: 1 }, []]) {
        const answer = await api('PUT', '/api/auth/admin/branding/web-player', {
          admin: settingsToken,
          body,
        });
        expect(answer.status, JSON.stringify(body)).toBe(400);
        expect(answer.error?.code).toBe('VALIDATION_FAILED');
      }
      expect((await branding()).webPlayerEnabled).toBe(true);
    });

    it('turns web playback off for everyone at once, without touching the users’ own switches', async () => {
      const off = await api('PUT', '/api/auth/admin/branding/web-player', {
        admin: settingsToken,
        body: { enabled: false },
      });
      expect(off).toMatchObject({ status: 200, body: { enabled: false } });
      expect(await branding()).toEqual({ systemName: 'SVC Media', logoUrl: null, webPlayerEnabled: false });
      expect(
        (await api<MyWebPlaybackResponse>('GET', '/api/auth/me/web-playback', { bearer: onUserAccess })).body,
      ).toEqual({ system: false, user: true, allowed: false });
      expect(
        (await api<MyWebPlaybackResponse>('GET', '/api/auth/me/web-playback', { bearer: offUserAccess }))
          .body,
      ).toEqual({ system: false, user: false, allowed: false });
      expect((await admin<UserDetail>('GET', `/api/auth/admin/users/${onUserId}`)).body.webPlayback).toBe(
        true,
      );
      expect((await admin<UserDetail>('GET', `/api/auth/admin/users/${offUserId}`)).body.webPlayback).toBe(
        false,
      );
      // Play-agents are told the effective switch: off for everyone while the system switch is off.
      expect((await playbackPolicy(onUserId)).webPlayback).toBe(false);

      const on = await admin('PUT', '/api/auth/admin/branding/web-player', { enabled: true });
      expect(on).toMatchObject({ status: 200, body: { enabled: true } });
      expect((await branding()).webPlayerEnabled).toBe(true);
      expect(
        (await api<MyWebPlaybackResponse>('GET', '/api/auth/me/web-playback', { bearer: onUserAccess })).body,
      ).toEqual({ system: true, user: true, allowed: true });
      expect((await playbackPolicy(onUserId)).webPlayback).toBe(true);
      expect((await playbackPolicy(offUserId)).webPlayback).toBe(false);
      // The user switched off stays off.
      expect(
        (await api<MyWebPlaybackResponse>('GET', '/api/auth/me/web-playback', { bearer: offUserAccess }))
          .body,
      ).toEqual({ system: true, user: false, allowed: false });
      expect((await admin<UserDetail>('GET', `/api/auth/admin/users/${offUserId}`)).body.webPlayback).toBe(
        false,
      );
    });

    it('follows the account’s own switch as user management changes it', async () => {
      const patched = await admin('PATCH', `/api/auth/admin/users/${offUserId}`, { webPlayback: true });
      expect(patched.status).toBe(200);
      expect(
        (await api<MyWebPlaybackResponse>('GET', '/api/auth/me/web-playback', { bearer: offUserAccess }))
          .body,
      ).toEqual({ system: true, user: true, allowed: true });
    });

    it('records each switch in the audit log with the actor', async () => {
      const log = await admin<AuditLogResponse>(
        'GET',
        '/api/auth/admin/audit-log?action=settings.web-player',
      );
      expect(log.status).toBe(200);
      // Newest first: the administrator's "on", then the settings account's "off".
      expect(log.body.items).toHaveLength(2);
      expect(log.body.items[0]).toMatchObject({
        actorName: ADMIN.username,
        action: 'settings.web-player',
        targetType: 'setting',
        targetId: 'web-player',
        details: { before: { enabled: false }, after: { enabled: true } },
      });
      expect(log.body.items[1]).toMatchObject({
        actorName: 'settings.admin',
        details: { before: { enabled: true }, after: { enabled: false } },
      });
      expect(log.body.items[1]!.clientIp).toBeTruthy();
    });
  });

  describe('own usage', () => {
    it('answers the caller’s own quotas exactly as the administrator sees them', async () => {
      const userId = await createUser('quota.viewer');
      const otherId = await createUser('quota.other');
      const quotas = {
        total: { enabled: true, amount: 1, unit: 'GB', period: 'month' },
        routes: [
          { kind: 'node', id: 'node-local-play-agent', enabled: true, amount: 10, unit: 'MB', period: 'day' },
        ],
      };
      expect((await admin('PUT', `/api/auth/admin/users/${userId}/quotas`, quotas)).status).toBe(200);
      expect(
        (
          await admin('PUT', `/api/auth/admin/users/${otherId}/quotas`, {
            total: { enabled: true, amount: 5, unit: 'MB', period: 'day' },
            routes: [],
          })
        ).status,
      ).toBe(200);
      const usage = (id: string, bytes: number) =>
        internal('/api/auth/internal/usage', { userId: id, nodeId: 'node-local-play-agent', bytes });
      expect(await usage(userId, 11 * 1024 * 1024)).toBe(204);
      expect(await usage(otherId, 1_000)).toBe(204);

      const token = await login('quota.viewer', 'portal');
      expect((await api('GET', '/api/auth/me/usage')).status).toBe(401);
      const mine = await api<UserUsageResponse>('GET', '/api/auth/me/usage', { bearer: token });
      expect(mine.status).toBe(200);
      expect(mine.body.quotas).toMatchObject([
        { scope: 'total', limitBytes: 1024 ** 3, usedBytes: 11 * 1024 * 1024, exhausted: false },
        {
          scope: 'route',
          kind: 'node',
          id: 'node-local-play-agent',
          usedBytes: 11 * 1024 * 1024,
          exhausted: true,
        },
      ]);
      const asAdmin = await admin<UserUsageResponse>('GET', `/api/auth/admin/users/${userId}/usage`);
      expect(mine.body).toEqual(asAdmin.body);

      // Another account sees its own quotas only; an account without quotas sees none.
      const other = await api<UserUsageResponse>('GET', '/api/auth/me/usage', {
        bearer: await login('quota.other', 'portal'),
      });
      expect(other.body.quotas).toMatchObject([{ scope: 'total', usedBytes: 1_000 }]);
      expect(other.body.quotas).toHaveLength(1);
      const none = await api<UserUsageResponse>('GET', '/api/auth/me/usage', { admin: adminToken });
      expect(none).toMatchObject({ status: 200, body: { quotas: [] } });
    });
  });

  describe('dashboard: active playback sessions', () => {
    let aliceId: string;
    let bobId: string;
    let dashboardToken: string;

    /** A playback event `agoMs` before the clock's now. */
    const event = (
      userId: string,
      sessionId: string,
      eventType: ActivityEvent['eventType'],
      agoMs: number,
      overrides: Partial<ActivityEvent> = {},
    ): ActivityEvent => ({
      eventId: randomUUID(),
      userId,
      eventType,
      occurredAt: new Date(clock.now() - agoMs).toISOString(),
      sessionId,
      clientIp: '198.51.100.7',
      userAgent: 'Infuse/7.7',
      mediaId: `media-${sessionId}`,
      mediaType: 'movie',
      mediaName: `Title of ${sessionId}`,
      seriesName: null,
      durationMs: 10_000,
      bytesDelta: 1_000,
      positionSec: 10,
      runtimeSec: 5400,
      nodeId: 'node-local-play-agent',
      endpointId: null,
      client: 'Infuse',
      deviceName: 'Apple TV',
      deviceId: 'dev-1',
      playMethod: 'DirectStream',
      result: null,
      reason: null,
      extras: {},
      ...overrides,
    });
    const report = async (events: ActivityEvent[]) =>
      expect(await internal('/api/auth/internal/activity', { events })).toBe(204);
    const sessions = async () => {
      const answer = await api<DashboardSessionsResponse>('GET', '/api/auth/admin/dashboard/sessions', {
        admin: dashboardToken,
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body;
    };

    beforeAll(async () => {
      aliceId = await createUser('alice');
      bobId = await createUser('bob');
      await createUser('dash.viewer', { permissions: ['dashboard'] });
      dashboardToken = await login('dash.viewer', 'console');
    });

    it('requires a console account holding `dashboard`', async () => {
      expect((await api('GET', '/api/auth/admin/dashboard/sessions')).status).toBe(401);
      const portal = await login('alice', 'portal');
      expect((await api('GET', '/api/auth/admin/dashboard/sessions', { bearer: portal })).status).toBe(401);
      await createUser('users.only', { permissions: ['user', 'settings'] });
      const usersOnly = await login('users.only', 'console');
      const refused = await api('GET', '/api/auth/admin/dashboard/sessions', { admin: usersOnly });
      expect(refused).toMatchObject({ status: 403, error: { code: 'FORBIDDEN' } });
      expect((await admin('GET', '/api/auth/admin/dashboard/sessions')).status).toBe(200);
      expect(await sessions()).toEqual({ sessions: [], total: 0 });
    });

    it('lists sessions whose latest start or progress is recent and that have no stop, newest first', async () => {
      await report([
        // Active: started 10 minutes ago, last progress 2 minutes ago.
        event(aliceId, 'sess-long', 'start', 10 * MINUTE, { bytesDelta: 0, positionSec: 0 }),
        event(aliceId, 'sess-long', 'progress', 6 * MINUTE, { bytesDelta: 4_000_000, positionSec: 240 }),
        event(aliceId, 'sess-long', 'progress', 2 * MINUTE, {
          bytesDelta: 6_000_000,
          positionSec: 480.5,
          clientIp: '198.51.100.99',
          deviceName: 'Phone',
          client: 'Emby iOS',
          playMethod: 'DirectPlay',
        }),
        // Active: only a start, 30 seconds ago (an episode, on a redirect without bytes).
        event(bobId, 'sess-new', 'start', 30 * 1000, {
          mediaType: 'episode',
          mediaName: 'Pilot',
          seriesName: 'A Series',
          bytesDelta: 0,
          positionSec: null,
          runtimeSec: null,
          playMethod: 'Redirect',
        }),
        // Stopped: start, progress, stop.
        event(bobId, 'sess-stopped', 'start', 3 * MINUTE),
        event(bobId, 'sess-stopped', 'progress', 2 * MINUTE),
        event(bobId, 'sess-stopped', 'stop', 1 * MINUTE),
        // A stop that was followed by a late progress still ends the session.
        event(aliceId, 'sess-late', 'start', 4 * MINUTE),
        event(aliceId, 'sess-late', 'stop', 3 * MINUTE),
        event(aliceId, 'sess-late', 'progress', 1 * MINUTE),
        // Stale: the latest progress is 6 minutes old.
        event(aliceId, 'sess-stale', 'start', 20 * MINUTE),
        event(aliceId, 'sess-stale', 'progress', 6 * MINUTE),
      ]);
      const answer = await sessions();
      expect(answer.total).toBe(2);
      expect(answer.sessions.map((session) => session.sessionId)).toEqual(['sess-new', 'sess-long']);
      expect(answer.sessions[1]).toEqual({
        sessionId: 'sess-long',
        userId: aliceId,
        username: 'alice',
        mediaId: 'media-sess-long',
        mediaName: 'Title of sess-long',
        seriesName: null,
        mediaType: 'movie',
        client: 'Emby iOS',
        deviceName: 'Phone',
        clientIp: '198.51.100.99',
        nodeId: 'node-local-play-agent',
        playMethod: 'DirectPlay',
        positionSec: 480.5,
        runtimeSec: 5400,
        startedAt: new Date(clock.now() - 10 * MINUTE).toISOString(),
        lastSeenAt: new Date(clock.now() - 2 * MINUTE).toISOString(),
        bytes: 10_000_000,
      });
      expect(answer.sessions[0]).toMatchObject({
        sessionId: 'sess-new',
        userId: bobId,
        username: 'bob',
        mediaType: 'episode',
        mediaName: 'Pilot',
        seriesName: 'A Series',
        positionSec: null,
        runtimeSec: null,
        playMethod: 'Redirect',
        bytes: 0,
        startedAt: new Date(clock.now() - 30 * 1000).toISOString(),
      });
    });

    it('follows the service clock: a session without news for more than 5 minutes drops out', async () => {
      clock.advance(3 * MINUTE + 30 * 1000); // sess-long last seen 5.5 minutes ago, sess-new 4 minutes ago
      const later = await sessions();
      expect(later).toMatchObject({ total: 1, sessions: [{ sessionId: 'sess-new' }] });
      // A new progress brings it back, with its bytes added.
      await report([event(aliceId, 'sess-long', 'progress', 0, { bytesDelta: 500 })]);
      const back = await sessions();
      expect(back.sessions.map((session) => session.sessionId)).toEqual(['sess-new', 'sess-long']);
      expect(back.sessions[1]).toMatchObject({
        bytes: 10_000_500,
        lastSeenAt: new Date(clock.now()).toISOString(),
      });
      // Its stop ends it at once.
      await report([event(aliceId, 'sess-long', 'stop', 0)]);
      expect((await sessions()).sessions.map((session) => session.sessionId)).toEqual(['sess-new']);
    });

    it('lists at most 200 sessions and counts them all', async () => {
      clock.advance(10 * MINUTE); // everything so far is stale
      expect(await sessions()).toEqual({ sessions: [], total: 0 });
      const events = Array.from({ length: 205 }, (_, index) =>
        event(
          index % 2 === 0 ? aliceId : bobId,
          `bulk-${String(index).padStart(3, '0')}`,
          'start',
          index * 1000,
        ),
      );
      await report(events);
      const answer = await sessions();
      expect(answer.total).toBe(205);
      expect(answer.sessions).toHaveLength(200);
      // Newest first: bulk-000 started now, bulk-199 199 seconds ago; the five oldest are left out.
      expect(answer.sessions[0]!.sessionId).toBe('bulk-000');
      expect(answer.sessions.at(-1)!.sessionId).toBe('bulk-199');
    });
  });
});
