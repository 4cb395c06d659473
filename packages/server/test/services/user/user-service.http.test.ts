import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_REVOKED_CHANNEL, ALL_PERMISSIONS, type Identity, type UserDetail } from '@svc/contracts';
import { createConfigComponent } from '../../../src/services/config/config.component.js';
import { createUserComponent } from '../../../src/services/user/user.component.js';
import { installBackends } from '../../support/install-backends.js';
import { startTestInstall, waitFor, type TestInstall } from '../../support/runtime.js';
import { ManualClock, UserServiceClient } from './support.js';

const ADMIN = { username: 'root', password: 'correct horse battery' };
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

describe.each(installBackends())('user service over HTTP on $label', (backend) => {
  let install: TestInstall;
  let api: UserServiceClient;
  const clock = new ManualClock(Date.parse('2024-03-06T04:00:00.000Z')); // Wednesday 12:00 in Shanghai
  const revoked: unknown[] = [];
  let admin: Identity;

  /** Creates a user as the administrator and answers its id. */
  const createUser = async (body: Record<string, unknown>, as: Identity = admin): Promise<string> => {
    const created = await api.call<{ id: string }>('POST', '/api/auth/admin/users', { identity: as, body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id;
  };
  const userDetail = async (id: string) =>
    (await api.call<UserDetail>('GET', `/api/auth/admin/users/${id}`, { identity: admin })).body;
  const auditActions = async () =>
    (
      await api.call<{ items: { action: string }[] }>('GET', '/api/auth/admin/audit-log?pageSize=100', {
        identity: admin,
      })
    ).body.items.map((item) => item.action);

  beforeAll(async () => {
    install = await startTestInstall([createConfigComponent, createUserComponent], backend.env, { clock });
    api = new UserServiceClient(install);
    await install.context.cache.subscribe(AUTH_REVOKED_CHANNEL, (message) => {
      revoked.push(JSON.parse(message));
    });
  });

  afterAll(async () => {
    await install?.stop();
    await backend.cleanup();
  });

  describe('first run', () => {
    it('reports that no administrator exists yet', async () => {
      const status = await api.call('GET', '/api/auth/setup/status');
      expect(status).toMatchObject({ status: 200, body: { adminExists: false } });
    });

    it('refuses bad setup input with 400 and creates nothing', async () => {
      for (const body of [
        { username: 'root', password: 'short7!' },
        { username: 'root', password: 'x'.repeat(257) },
        { username: 'has space', password: 'long enough password' },
        { username: 'x'.repeat(65), password: 'long enough password' },
        { username: '   ', password: 'long enough password' },
        { username: 'root', password: 'long enough password', displayName: 'd'.repeat(129) },
        { username: 'root', password: 'long enough password', role: 'admin' },
        { username: 'root' },
      ]) {
        const answer = await api.call('POST', '/api/auth/setup/admin', { body });
        expect(answer.status, JSON.stringify(body)).toBe(400);
        expect(answer.body).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
      }
      expect((await api.call('GET', '/api/auth/setup/status')).body).toEqual({ adminExists: false });
    });

    it('creates exactly one administrator from concurrent calls, then answers 409 SETUP_DONE', async () => {
      const answers = await Promise.all(
        ['root', 'other1', 'other2', 'other3'].map((username) =>
          api.call('POST', '/api/auth/setup/admin', {
            body: { username, password: ADMIN.password, displayName: 'The Root' },
          }),
        ),
      );
      const created = answers.filter((answer) => answer.status === 201);
      expect(created).toHaveLength(1);
      for (const answer of answers.filter((a) => a.status !== 201)) {
        expect(answer).toMatchObject({ status: 409, body: { error: { code: 'SETUP_DONE' } } });
      }
      // Whoever won: make "root" the known administrator for the rest of the suite.
      const winner = (created[0]!.body as { user: { username: string; role: string; permissions: string[] } })
        .user;
      expect(winner).toMatchObject({ role: 'admin', permissions: [...ALL_PERMISSIONS] });
      ADMIN.username = winner.username;
      expect((await api.call('GET', '/api/auth/setup/status')).body).toEqual({ adminExists: true });
      const again = await api.call('POST', '/api/auth/setup/admin', {
        body: { username: 'late', password: ADMIN.password },
      });
      expect(again).toMatchObject({ status: 409, body: { error: { code: 'SETUP_DONE' } } });
      admin = await api.consoleIdentity(ADMIN.username, ADMIN.password);
      const list = await api.call<{ total: number }>('GET', '/api/auth/admin/users', { identity: admin });
      expect(list.body.total).toBe(1);
    });
  });

  describe('sign-in', () => {
    it('gives the console an admin and an access token, the portal an access token', async () => {
      const login = await api.call('POST', '/api/auth/login', {
        body: { username: ` ${ADMIN.username.toUpperCase()} `, password: ADMIN.password, client: 'console' },
      });
      expect(login.status).toBe(200);
      const body = login.body as Record<string, string>;
      expect(body.adminToken).toMatch(/^svc_adm_[A-Za-z0-9_-]{43}$/);
      expect(body.accessToken).toMatch(/^svc_acc_[A-Za-z0-9_-]{43}$/);
      expect(body.adminTokenExpiresAt).toBe(new Date(clock.now() + 12 * HOUR).toISOString());
      expect(body.accessTokenExpiresAt).toBe(new Date(clock.now() + 30 * DAY).toISOString());
      expect(login.body).toMatchObject({ user: { username: ADMIN.username, role: 'admin' } });

      const portal = await api.call('POST', '/api/auth/login', {
        body: { username: ADMIN.username, password: ADMIN.password, client: 'portal' },
      });
      expect(portal.status).toBe(200);
      expect(Object.keys(portal.body as object).sort()).toEqual([
        'accessToken',
        'accessTokenExpiresAt',
        'user',
      ]);

      const introspected = await api.introspect(body.adminToken!, 'admin');
      expect(introspected).toMatchObject({ active: true, role: 'admin', permissions: [...ALL_PERMISSIONS] });
      // A token is only valid as its own kind, and never as a made-up one.
      expect(await api.introspect(body.accessToken!, 'admin')).toEqual({ active: false });
      expect(await api.introspect(body.adminToken!, 'access')).toEqual({ active: false });
      expect(await api.introspect(`svc_adm_${'A'.repeat(43)}`, 'admin')).toEqual({ active: false });
    });

    it('answers wrong passwords and unknown users alike', async () => {
      const wrong = await api.call('POST', '/api/auth/login', {
        body: { username: ADMIN.username, password: 'not the password', client: 'portal' },
        clientIp: '192.0.2.50',
      });
      const unknown = await api.call('POST', '/api/auth/login', {
        body: { username: 'nobody', password: 'not the password', client: 'portal' },
        clientIp: '192.0.2.50',
      });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.body).toEqual(unknown.body);
      expect(wrong.body).toMatchObject({ error: { code: 'INVALID_CREDENTIALS' } });
    });

    it('refuses bad sign-in bodies with 400', async () => {
      for (const body of [
        { username: ADMIN.username, password: ADMIN.password },
        { username: ADMIN.username, password: ADMIN.password, client: 'tv' },
        { username: '', password: ADMIN.password, client: 'portal' },
        { username: ADMIN.username, password: '', client: 'portal' },
      ]) {
        const answer = await api.call('POST', '/api/auth/login', { body });
        expect(answer.status, JSON.stringify(body)).toBe(400);
        expect(answer.body).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
      }
    });

    it('shows the signed-in account with effective permissions', async () => {
      const me = await api.call('GET', '/api/auth/me', { identity: admin });
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ username: ADMIN.username, displayName: 'The Root', role: 'admin' });
      expect((me.body as { permissions: string[] }).permissions).toEqual([...ALL_PERMISSIONS]);
      expect((me.body as Record<string, unknown>).passwordHash).toBeUndefined();
      expect(JSON.stringify(me.body)).not.toContain('scrypt');
    });

    it('refuses calls without the service token, without sign-in or with the wrong token kind', async () => {
      const noToken = await api.call('GET', '/api/auth/me', { identity: admin, serviceToken: false });
      expect(noToken.status).toBe(401);
      const noIdentity = await api.call('GET', '/api/auth/me');
      expect(noIdentity).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHORIZED' } } });
      const introspect = await api.call('POST', '/api/auth/internal/introspect', {
        body: { token: 'x', kind: 'admin' },
        serviceToken: false,
      });
      expect(introspect.status).toBe(401);
      const accessKind = await api.call('GET', '/api/auth/admin/users', {
        identity: { ...admin, tokenKind: 'access' },
      });
      expect(accessKind.status).toBe(401);
    });
  });

  describe('user management', () => {
    let bobId: string;

    it('creates, lists, finds and edits users', async () => {
      bobId = await createUser({
        username: 'Bob',
        password: 'bob password 1',
        displayName: 'Bob B',
        permissions: ['dashboard'],
      });
      expect(await userDetail(bobId)).toMatchObject({
        username: 'Bob',
        displayName: 'Bob B',
        role: 'user',
        disabled: false,
        permissions: ['dashboard'],
        webPlayback: true,
        driveAPlayMode: 'proxy',
        nodeAccess: { mode: 'ALL', entries: [] },
        quotas: { total: null, routes: [] },
      });
      await createUser({ username: 'dave.d@example', password: 'dave password', webPlayback: false });

      const search = await api.call<{ items: { username: string }[]; total: number }>(
        'GET',
        '/api/auth/admin/users?search=BOB&page=1&pageSize=10',
        { identity: admin },
      );
      expect(search.body.items.map((item) => item.username)).toEqual(['Bob']);
      expect(search.body.total).toBe(1);
      const byDisplayName = await api.call<{ total: number }>('GET', '/api/auth/admin/users?search=b%20b', {
        identity: admin,
      });
      expect(byDisplayName.body.total).toBe(1);
      const paged = await api.call<{ items: unknown[]; total: number }>(
        'GET',
        '/api/auth/admin/users?page=2&pageSize=2',
        { identity: admin },
      );
      expect(paged.body).toMatchObject({ total: 3, page: 2, pageSize: 2 });
      expect(paged.body.items).toHaveLength(1);

      const patched = await api.call('PATCH', `/api/auth/admin/users/${bobId}`, {
        identity: admin,
        body: { displayName: 'Robert', driveAPlayMode: 'redirect', webPlayback: false },
      });
      expect(patched).toMatchObject({
        status: 200,
        body: { displayName: 'Robert', driveAPlayMode: 'redirect', webPlayback: false },
      });
      expect(
        (
          await api.call('GET', '/api/auth/admin/users/00000000-0000-4000-8000-000000000000', {
            identity: admin,
          })
        ).status,
      ).toBe(404);
    });

    it('refuses bad user input with 400 and writes nothing', async () => {
      const before = await api.call<{ total: number }>('GET', '/api/auth/admin/users', { identity: admin });
      for (const body of [
        { username: 'bad name', password: 'long enough 1' },
        { username: 'x'.repeat(65), password: 'long enough 1' },
        { username: 'new1', password: 'short' },
        { username: 'new1', password: 'long enough 1', permissions: ['reports'] },
        { username: 'new1', password: 'long enough 1', permissions: ['license'] },
        { username: 'new1', password: 'long enough 1', permissions: ['nonsense'] },
        { username: 'new1', password: 'long enough 1', role: 'root' },
        { username: 'new1', password: 'long enough 1', driveAPlayMode: 'stream' },
        { username: 'new1', password: 'long enough 1', displayName: 'd'.repeat(129) },
      ]) {
        const answer = await api.call('POST', '/api/auth/admin/users', { identity: admin, body });
        expect(answer.status, JSON.stringify(body)).toBe(400);
        expect(answer.body).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
      }
      const duplicate = await api.call('POST', '/api/auth/admin/users', {
        identity: admin,
        body: { username: 'BOB', password: 'long enough 1' },
      });
      expect(duplicate).toMatchObject({ status: 409, body: { error: { code: 'USERNAME_TAKEN' } } });
      const after = await api.call<{ total: number }>('GET', '/api/auth/admin/users', { identity: admin });
      expect(after.body.total).toBe(before.body.total);

      for (const [method, path, body] of [
        ['PATCH', `/api/auth/admin/users/${bobId}`, {}],
        ['PATCH', `/api/auth/admin/users/${bobId}`, { password: 'short' }],
        ['PATCH', `/api/auth/admin/users/${bobId}`, { role: 'admin' }],
        ['PATCH', `/api/auth/admin/users/${bobId}`, { disabled: 'yes' }],
        ['PUT', `/api/auth/admin/users/${bobId}/permissions`, { permissions: ['reports'] }],
        ['PUT', `/api/auth/admin/users/${bobId}/permissions`, { permissions: ['dashboard', 'license'] }],
        ['PUT', `/api/auth/admin/users/${bobId}/permissions`, { permissions: ['flying'] }],
        ['PUT', `/api/auth/admin/users/${bobId}/node-access`, { mode: 'SOME', entries: [] }],
        [
          'PUT',
          `/api/auth/admin/users/${bobId}/node-access`,
          { mode: 'ALL', entries: [{ kind: 'node', id: 'node-local-play-agent' }] },
        ],
        [
          'PUT',
          `/api/auth/admin/users/${bobId}/node-access`,
          { mode: 'ALLOW_LIST', entries: [{ kind: 'drive', id: 'node-local-play-agent' }] },
        ],
        ['PUT', `/api/auth/admin/users/${bobId}/quotas`, { total: quota({ amount: -1 }), routes: [] }],
        ['PUT', `/api/auth/admin/users/${bobId}/quotas`, { total: quota({ amount: 0 }), routes: [] }],
        ['PUT', `/api/auth/admin/users/${bobId}/quotas`, { total: quota({ amount: 1e10 }), routes: [] }],
        ['PUT', `/api/auth/admin/users/${bobId}/quotas`, { total: quota({ unit: 'TB' }), routes: [] }],
        ['PUT', `/api/auth/admin/users/${bobId}/quotas`, { total: quota({ period: 'year' }), routes: [] }],
        ['PUT', `/api/auth/admin/users/${bobId}/quotas`, { total: quota({ amount: '5' }), routes: [] }],
        [
          'PUT',
          `/api/auth/admin/users/${bobId}/quotas`,
          { total: null, routes: [{ ...quota({ amount: -5 }), kind: 'node', id: 'node-local-play-agent' }] },
        ],
        ['GET', '/api/auth/admin/users?pageSize=101', undefined],
        ['GET', '/api/auth/admin/users?page=0', undefined],
        ['GET', '/api/auth/admin/users/not-a-uuid', undefined],
      ] as const) {
        const answer = await api.call(method, path, { identity: admin, body });
        expect(answer.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
        expect(answer.body).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
      }
      expect(await userDetail(bobId)).toMatchObject({
        displayName: 'Robert',
        disabled: false,
        role: 'user',
        permissions: ['dashboard'],
        nodeAccess: { mode: 'ALL', entries: [] },
        quotas: { total: null, routes: [] },
      });
    });

    it('checks allow-list entries against the config service: unknown ones answer 400 UNKNOWN_NODE', async () => {
      for (const entries of [
        [{ kind: 'node', id: 'node-does-not-exist' }],
        // The built-in storage node is not a play-agent node.
        [{ kind: 'node', id: 'node-local-storage' }],
        // A play-agent node is not a manual reverse-proxy address.
        [{ kind: 'endpoint', id: 'node-local-play-agent' }],
        [
          { kind: 'node', id: 'node-local-play-agent' },
          { kind: 'endpoint', id: 'not a node id' },
        ],
      ]) {
        const answer = await api.call('PUT', `/api/auth/admin/users/${bobId}/node-access`, {
          identity: admin,
          body: { mode: 'ALLOW_LIST', entries },
        });
        expect(answer.status, JSON.stringify(entries)).toBe(400);
        expect(answer.body).toMatchObject({ error: { code: 'UNKNOWN_NODE' } });
        expect((answer.body as { error: { message: string } }).error.message).toContain(entries.at(-1)!.id);
      }
      const routeQuota = await api.call('PUT', `/api/auth/admin/users/${bobId}/quotas`, {
        identity: admin,
        body: { total: null, routes: [{ ...quota({}), kind: 'node', id: 'node-missing' }] },
      });
      expect(routeQuota).toMatchObject({ status: 400, body: { error: { code: 'UNKNOWN_NODE' } } });
      expect(await userDetail(bobId)).toMatchObject({
        nodeAccess: { mode: 'ALL', entries: [] },
        quotas: { total: null, routes: [] },
      });

      const ok = await api.call('PUT', `/api/auth/admin/users/${bobId}/node-access`, {
        identity: admin,
        body: { mode: 'ALLOW_LIST', entries: [{ kind: 'node', id: 'node-local-play-agent' }] },
      });
      expect(ok.status).toBe(200);
      expect(await userDetail(bobId)).toMatchObject({
        nodeAccess: { mode: 'ALLOW_LIST', entries: [{ kind: 'node', id: 'node-local-play-agent' }] },
      });
      const none = await api.call('PUT', `/api/auth/admin/users/${bobId}/node-access`, {
        identity: admin,
        body: { mode: 'NONE' },
      });
      expect(none).toMatchObject({ status: 200, body: { mode: 'NONE', entries: [] } });
    });

    it('lets a non-administrator manage users only within its own permissions', async () => {
      const carolId = await createUser({
        username: 'carol',
        password: 'carol password',
        permissions: ['user', 'dashboard'],
      });
      const carol = await api.consoleIdentity('carol', 'carol password');
      expect(carol.permissions.sort()).toEqual(['dashboard', 'user']);

      const asAdmin = await api.call('POST', '/api/auth/admin/users', {
        identity: carol,
        body: { username: 'sneaky', password: 'sneaky password', role: 'admin' },
      });
      expect(asAdmin).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
      const granting = await api.call('POST', '/api/auth/admin/users', {
        identity: carol,
        body: { username: 'sneaky', password: 'sneaky password', permissions: ['node'] },
      });
      expect(granting.status).toBe(403);
      const grantBob = await api.call('PUT', `/api/auth/admin/users/${bobId}/permissions`, {
        identity: carol,
        body: { permissions: ['dashboard', 'settings'] },
      });
      expect(grantBob.status).toBe(403);
      expect((await userDetail(bobId)).permissions).toEqual(['dashboard']);
      const adminRow = await api.call<{ items: { id: string; role: string }[] }>(
        'GET',
        '/api/auth/admin/users',
        { identity: carol },
      );
      const rootId = adminRow.body.items.find((item) => item.role === 'admin')!.id;
      for (const [method, path, body] of [
        ['PATCH', `/api/auth/admin/users/${rootId}`, { displayName: 'pwned' }],
        ['PUT', `/api/auth/admin/users/${rootId}/permissions`, { permissions: [] }],
        ['PUT', `/api/auth/admin/users/${rootId}/quotas`, { total: quota({}), routes: [] }],
        ['PUT', `/api/auth/admin/users/${rootId}/node-access`, { mode: 'NONE' }],
        ['DELETE', `/api/auth/admin/users/${rootId}`, undefined],
      ] as const) {
        const answer = await api.call(method, path, { identity: carol, body });
        expect(answer.status, `${method} ${path}`).toBe(403);
      }
      expect(await userDetail(rootId)).toMatchObject({ displayName: 'The Root', disabled: false });
      expect((await userDetail(rootId)).quotas).toEqual({ total: null, routes: [] });
      const allowed = await api.call('POST', '/api/auth/admin/users', {
        identity: carol,
        body: { username: 'erin', password: 'erin password', permissions: ['dashboard'] },
      });
      expect(allowed.status).toBe(201);
      const keep = await api.call('PUT', `/api/auth/admin/users/${carolId}/permissions`, {
        identity: carol,
        body: { permissions: ['user'] },
      });
      expect(keep).toMatchObject({ status: 200, body: { permissions: ['user'] } });
    });

    it('allows the console only to administrators and users holding a menu permission', async () => {
      const denied = await api.call('POST', '/api/auth/login', {
        body: { username: 'dave.d@example', password: 'dave password', client: 'console' },
      });
      expect(denied).toMatchObject({ status: 403, body: { error: { code: 'CONSOLE_NOT_ALLOWED' } } });
      const portal = await api.call('POST', '/api/auth/login', {
        body: { username: 'dave.d@example', password: 'dave password', client: 'portal' },
      });
      expect(portal.status).toBe(200);
      const dave = await api.identityOf((portal.body as { accessToken: string }).accessToken, 'access');
      expect(dave.permissions).toEqual([]);
      const bobConsole = await api.call('POST', '/api/auth/login', {
        body: { username: 'bob', password: 'bob password 1', client: 'console' },
      });
      expect(bobConsole.status).toBe(200);
      const bob = await api.identityOf((bobConsole.body as { adminToken: string }).adminToken, 'admin');
      // bob holds 'dashboard' only: user management is not his.
      const forbidden = await api.call('GET', '/api/auth/admin/users', { identity: bob });
      expect(forbidden).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
      const audit = await api.call('GET', '/api/auth/admin/audit-log', { identity: bob });
      expect(audit.status).toBe(403);
    });
  });

  describe('tokens', () => {
    const portalLogin = async (username: string, password: string) => {
      const login = await api.call<{ accessToken: string }>('POST', '/api/auth/login', {
        body: { username, password, client: 'portal' },
      });
      expect(login.status).toBe(200);
      return login.body.accessToken;
    };
    const consoleLogin = async (username: string, password: string) => {
      const login = await api.call<{ accessToken: string; adminToken: string }>('POST', '/api/auth/login', {
        body: { username, password, client: 'console' },
      });
      expect(login.status).toBe(200);
      return login.body;
    };

    it('revokes the presenting token on sign-out and announces it', async () => {
      const tokens = await consoleLogin(ADMIN.username, ADMIN.password);
      const identity = await api.identityOf(tokens.adminToken, 'admin');
      const out = await api.call('POST', '/api/auth/logout', { identity });
      expect(out.status).toBe(204);
      expect(await api.introspect(tokens.adminToken, 'admin')).toEqual({ active: false });
      expect((await api.introspect(tokens.accessToken, 'access')).active).toBe(true);
      await waitFor(async () =>
        revoked.some((m) => sameJson(m, { tokenIds: [identity.tokenId] })) ? true : undefined,
      );
    });

    it('revokes every token on a password change; the old password stops working', async () => {
      await createUser({ username: 'frank', password: 'frank password 1' });
      const first = await consoleLogin('root', ADMIN.password).catch(() => undefined);
      void first;
      const a = await portalLogin('frank', 'frank password 1');
      const b = await portalLogin('frank', 'frank password 1');
      const frank = await api.identityOf(a, 'access');
      const wrong = await api.call('PUT', '/api/auth/me/password', {
        identity: frank,
        body: { currentPassword: 'not it at all', newPassword: 'frank password 2' },
      });
      expect(wrong).toMatchObject({ status: 400, body: { error: { code: 'INVALID_CURRENT_PASSWORD' } } });
      expect((await api.introspect(b, 'access')).active).toBe(true);
      const short = await api.call('PUT', '/api/auth/me/password', {
        identity: frank,
        body: { currentPassword: 'frank password 1', newPassword: 'short' },
      });
      expect(short.status).toBe(400);
      const changed = await api.call('PUT', '/api/auth/me/password', {
        identity: frank,
        body: { currentPassword: 'frank password 1', newPassword: 'frank password 2' },
      });
      expect(changed.status).toBe(204);
      expect(await api.introspect(a, 'access')).toEqual({ active: false });
      expect(await api.introspect(b, 'access')).toEqual({ active: false });
      await waitFor(async () =>
        revoked.some((m) => sameJson(m, { userId: frank.userId })) ? true : undefined,
      );
      const old = await api.call('POST', '/api/auth/login', {
        body: { username: 'frank', password: 'frank password 1', client: 'portal' },
      });
      expect(old.status).toBe(401);
      await portalLogin('frank', 'frank password 2');
    });

    it('revokes every token when an administrator resets the password or disables the user', async () => {
      const id = await createUser({ username: 'gina', password: 'gina password 1' });
      const before = await portalLogin('gina', 'gina password 1');
      const reset = await api.call('PATCH', `/api/auth/admin/users/${id}`, {
        identity: admin,
        body: { password: 'gina password 2' },
      });
      expect(reset.status).toBe(200);
      expect(await api.introspect(before, 'access')).toEqual({ active: false });

      const after = await portalLogin('gina', 'gina password 2');
      const disable = await api.call('PATCH', `/api/auth/admin/users/${id}`, {
        identity: admin,
        body: { disabled: true },
      });
      expect(disable).toMatchObject({ status: 200, body: { disabled: true } });
      expect(await api.introspect(after, 'access')).toEqual({ active: false });
      await waitFor(async () => (revoked.some((m) => sameJson(m, { userId: id })) ? true : undefined));

      // A disabled account answers exactly like a wrong password.
      const login = await api.call('POST', '/api/auth/login', {
        body: { username: 'gina', password: 'gina password 2', client: 'portal' },
        clientIp: '192.0.2.77',
      });
      const wrong = await api.call('POST', '/api/auth/login', {
        body: { username: 'gina', password: 'gina password 9', client: 'portal' },
        clientIp: '192.0.2.77',
      });
      expect(login.status).toBe(401);
      expect(login.body).toEqual(wrong.body);

      const enable = await api.call('PATCH', `/api/auth/admin/users/${id}`, {
        identity: admin,
        body: { disabled: false },
      });
      expect(enable.status).toBe(200);
      await portalLogin('gina', 'gina password 2');
    });

    it('refuses deleting yourself and the last enabled administrator', async () => {
      const self = await api.call('DELETE', `/api/auth/admin/users/${admin.userId}`, { identity: admin });
      expect(self).toMatchObject({ status: 409, body: { error: { code: 'SELF_ACTION' } } });
      const selfDisable = await api.call('PATCH', `/api/auth/admin/users/${admin.userId}`, {
        identity: admin,
        body: { disabled: true },
      });
      expect(selfDisable).toMatchObject({ status: 409, body: { error: { code: 'SELF_ACTION' } } });

      // Two administrators deleting each other at once: exactly one survives.
      const secondId = await createUser({ username: 'second', password: 'second password', role: 'admin' });
      const second = await api.consoleIdentity('second', 'second password');
      const answers = await Promise.all([
        api.call('DELETE', `/api/auth/admin/users/${secondId}`, { identity: admin }),
        api.call('DELETE', `/api/auth/admin/users/${admin.userId}`, { identity: second }),
      ]);
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses[0]).toBe(204);
      expect([401, 409]).toContain(statuses[1]);
      const rootStillThere = (
        await api.call('GET', `/api/auth/admin/users/${admin.userId}`, { identity: admin })
      ).status;
      if (rootStillThere !== 200) {
        // "second" won: make it the administrator of the rest of the suite.
        admin = second;
        ADMIN.username = 'second';
        ADMIN.password = 'second password';
      }
      const list = await api.call<{ items: { role: string }[] }>(
        'GET',
        '/api/auth/admin/users?pageSize=100',
        {
          identity: admin,
        },
      );
      expect(list.body.items.filter((item) => item.role === 'admin')).toHaveLength(1);
    });

    it('deletes a user with its tokens', async () => {
      const id = await createUser({ username: 'henry', password: 'henry password' });
      const token = await portalLogin('henry', 'henry password');
      const gone = await api.call('DELETE', `/api/auth/admin/users/${id}`, { identity: admin });
      expect(gone.status).toBe(204);
      expect(await api.introspect(token, 'access')).toEqual({ active: false });
      expect((await api.call('GET', `/api/auth/admin/users/${id}`, { identity: admin })).status).toBe(404);
      expect((await api.call('DELETE', `/api/auth/admin/users/${id}`, { identity: admin })).status).toBe(404);
    });

    it('lets tokens expire by the clock: admin tokens after 12 hours, access tokens after 30 days', async () => {
      const tokens = await consoleLogin(ADMIN.username, ADMIN.password);
      clock.advance(12 * HOUR - 1);
      expect((await api.introspect(tokens.adminToken, 'admin')).active).toBe(true);
      clock.advance(1);
      expect(await api.introspect(tokens.adminToken, 'admin')).toEqual({ active: false });
      expect((await api.introspect(tokens.accessToken, 'access')).active).toBe(true);
      clock.advance(30 * DAY - 12 * HOUR);
      expect(await api.introspect(tokens.accessToken, 'access')).toEqual({ active: false });
      admin = await api.consoleIdentity(ADMIN.username, ADMIN.password);
    });
  });

  describe('login lock', () => {
    const attempt = (password: string, clientIp: string, username = 'lockme') =>
      api.call('POST', '/api/auth/login', { body: { username, password, client: 'portal' }, clientIp });

    it('locks the (IP, user name) pair at the fifth failure and refuses even the right password with 429', async () => {
      await createUser({ username: 'lockme', password: 'lockme password' });
      const ip = '198.51.100.20';
      for (let i = 1; i <= 4; i++) expect((await attempt('wrong password', ip)).status).toBe(401);
      const fifth = await attempt('wrong password', ip);
      expect(fifth).toMatchObject({ status: 401, body: { error: { code: 'INVALID_CREDENTIALS' } } });
      const sixth = await attempt('lockme password', ip);
      expect(sixth).toMatchObject({ status: 429, body: { error: { code: 'LOGIN_LOCKED' } } });
      expect(sixth.headers['retry-after']).toBe('60');
      // Case and spaces of the name do not make another pair; another address does.
      expect((await attempt('lockme password', ip, ' LockMe ')).status).toBe(429);
      expect((await attempt('lockme password', '198.51.100.21')).status).toBe(200);
      clock.advance(30_000);
      expect((await attempt('lockme password', ip)).headers['retry-after']).toBe('30');
      clock.advance(30_000);
      expect((await attempt('lockme password', ip)).status).toBe(200);
    });

    it('forgets failures 120 s after the first one, and on success', async () => {
      const ip = '198.51.100.30';
      for (let i = 0; i < 4; i++) await attempt('wrong password', ip);
      clock.advance(120_000);
      expect((await attempt('wrong password', ip)).status).toBe(401);
      expect((await attempt('lockme password', ip)).status).toBe(200);
      for (let i = 0; i < 4; i++) expect((await attempt('wrong password', ip)).status).toBe(401);
      expect((await attempt('lockme password', ip)).status).toBe(200);
    });
  });

  describe('quotas and usage', () => {
    let userId: string;

    it('stores quotas and reports usage per period in the Asia/Shanghai calendar', async () => {
      clock.time = Date.parse('2024-05-08T04:00:00.000Z'); // Wednesday 12:00 in Shanghai
      admin = await api.consoleIdentity(ADMIN.username, ADMIN.password);
      userId = await createUser({ username: 'quota.user', password: 'quota password' });
      const body = {
        total: { enabled: true, amount: 1.5, unit: 'MB', period: 'day' },
        routes: [
          { kind: 'node', id: 'node-local-play-agent', enabled: true, amount: 2, unit: 'MB', period: 'week' },
        ],
      };
      const put = await api.call('PUT', `/api/auth/admin/users/${userId}/quotas`, { identity: admin, body });
      expect(put).toMatchObject({ status: 200, body });
      expect((await userDetail(userId)).quotas).toEqual(body);

      const report = (bytes: number, extra: Record<string, unknown> = {}) =>
        api.call('POST', '/api/auth/internal/usage', {
          body: { userId, nodeId: 'node-local-play-agent', bytes, ...extra },
        });
      // Concurrent reports all count.
      const answers = await Promise.all(Array.from({ length: 20 }, () => report(50_000)));
      expect(answers.every((answer) => answer.status === 204)).toBe(true);

      const usage = await api.call<{ quotas: Record<string, unknown>[] }>(
        'GET',
        `/api/auth/admin/users/${userId}/usage`,
        { identity: admin },
      );
      expect(usage.status).toBe(200);
      expect(usage.body.quotas).toEqual([
        {
          scope: 'total',
          enabled: true,
          amount: 1.5,
          unit: 'MB',
          period: 'day',
          limitBytes: 1_572_864,
          usedBytes: 1_000_000,
          periodStart: '2024-05-07T16:00:00.000Z',
          periodEnd: '2024-05-08T16:00:00.000Z',
          exhausted: false,
        },
        {
          scope: 'route',
          kind: 'node',
          id: 'node-local-play-agent',
          enabled: true,
          amount: 2,
          unit: 'MB',
          period: 'week',
          limitBytes: 2_097_152,
          usedBytes: 1_000_000,
          periodStart: '2024-05-05T16:00:00.000Z',
          periodEnd: '2024-05-12T16:00:00.000Z',
          exhausted: false,
        },
      ]);

      // Traffic through a manual address counts to the total, not to the node's route.
      expect((await report(600_000, { endpointId: 'node-manual-x' })).status).toBe(204);
      const policy = await api.call<Record<string, unknown>>(
        'GET',
        `/api/auth/internal/users/${userId}/playback-policy`,
      );
      expect(policy).toMatchObject({
        status: 200,
        body: {
          disabled: false,
          webPlayback: true,
          driveAPlayMode: 'proxy',
          nodeAccess: { mode: 'ALL', entries: [] },
          quotas: [
            { scope: 'total', limitBytes: 1_572_864, usedBytes: 1_600_000, exhausted: true },
            {
              scope: 'route',
              kind: 'node',
              id: 'node-local-play-agent',
              usedBytes: 1_000_000,
              exhausted: false,
            },
          ],
        },
      });

      // The next day (00:00 in Shanghai) the daily quota starts over; the weekly one goes on.
      clock.time = Date.parse('2024-05-08T16:00:00.000Z');
      await report(1_500_000);
      const nextDay = await api.call<{ quotas: { usedBytes: number; exhausted: boolean }[] }>(
        'GET',
        `/api/auth/internal/users/${userId}/playback-policy`,
      );
      expect(nextDay.body.quotas.map((q) => [q.usedBytes, q.exhausted])).toEqual([
        [1_500_000, false],
        [2_500_000, true],
      ]);
      // Monday 00:00 in Shanghai starts a new week.
      clock.time = Date.parse('2024-05-12T16:00:00.000Z');
      const nextWeek = await api.call<{ quotas: { usedBytes: number }[] }>(
        'GET',
        `/api/auth/internal/users/${userId}/playback-policy`,
      );
      expect(nextWeek.body.quotas.map((q) => q.usedBytes)).toEqual([0, 0]);
    });

    it('enforces only enabled quotas and drops the total with null', async () => {
      const put = await api.call('PUT', `/api/auth/admin/users/${userId}/quotas`, {
        identity: admin,
        body: {
          total: null,
          routes: [{ kind: 'node', id: 'node-local-play-agent', ...quota({ enabled: false }) }],
        },
      });
      expect(put.status).toBe(200);
      const policy = await api.call<{ quotas: unknown[] }>(
        'GET',
        `/api/auth/internal/users/${userId}/playback-policy`,
      );
      expect(policy.body.quotas).toEqual([]);
      const usage = await api.call<{ quotas: { enabled: boolean; exhausted: boolean }[] }>(
        'GET',
        `/api/auth/admin/users/${userId}/usage`,
        { identity: admin },
      );
      expect(usage.body.quotas).toMatchObject([{ scope: 'route', enabled: false, exhausted: false }]);
    });

    it('refuses bad usage reports and unknown users', async () => {
      for (const body of [
        { userId, nodeId: 'node-local-play-agent', bytes: -1 },
        { userId, nodeId: 'node-local-play-agent', bytes: 1.5 },
        { userId: 'someone', nodeId: 'node-local-play-agent', bytes: 1 },
        { userId, bytes: 1 },
      ]) {
        const answer = await api.call('POST', '/api/auth/internal/usage', { body });
        expect(answer.status, JSON.stringify(body)).toBe(400);
      }
      const unknown = '00000000-0000-4000-8000-000000000001';
      expect(
        (
          await api.call('POST', '/api/auth/internal/usage', {
            body: { userId: unknown, nodeId: 'node-x', bytes: 5 },
          })
        ).status,
      ).toBe(404);
      expect((await api.call('GET', `/api/auth/internal/users/${unknown}/playback-policy`)).status).toBe(404);
      expect(
        (await api.call('GET', `/api/auth/admin/users/${unknown}/usage`, { identity: admin })).status,
      ).toBe(404);
      // Internal routes are for services only.
      expect(
        (await api.call('GET', `/api/auth/internal/users/${userId}/playback-policy`, { serviceToken: false }))
          .status,
      ).toBe(401);
    });
  });

  describe('audit log and branding', () => {
    it('records administrative changes, newest first, without secrets', async () => {
      const all = await auditActions();
      for (const action of [
        'setup.admin',
        'user.create',
        'user.update',
        'user.delete',
        'user.permissions',
        'user.node-access',
        'user.quotas',
        'user.password-reset',
      ]) {
        expect(all, action).toContain(action);
      }
      const page = await api.call<{
        items: { at: string; id: number; details: unknown; actorName: string }[];
        total: number;
      }>('GET', '/api/auth/admin/audit-log?pageSize=100', { identity: admin });
      const times = page.body.items.map((item) => Date.parse(item.at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
      expect(page.body.total).toBe(page.body.items.length);
      const text = JSON.stringify(page.body);
      for (const secret of ['password 1', 'password 2', 'scrypt$', 'svc_adm_', 'svc_acc_']) {
        expect(text).not.toContain(secret);
      }

      const resets = await api.call<{ items: { action: string; targetType: string; clientIp: string }[] }>(
        'GET',
        '/api/auth/admin/audit-log?action=user.password-reset',
        { identity: admin },
      );
      expect(resets.body.items.length).toBeGreaterThan(0);
      expect(resets.body.items.every((item) => item.action === 'user.password-reset')).toBe(true);
      expect(resets.body.items[0]).toMatchObject({ targetType: 'user', clientIp: '203.0.113.10' });

      const byActor = await api.call<{ items: { actorId: string }[] }>(
        'GET',
        `/api/auth/admin/audit-log?actorId=${admin.userId}`,
        { identity: admin },
      );
      expect(byActor.body.items.every((item) => item.actorId === admin.userId)).toBe(true);
      const window = await api.call<{ items: { at: string }[] }>(
        'GET',
        `/api/auth/admin/audit-log?from=${encodeURIComponent('2024-05-08T00:00:00Z')}&to=${encodeURIComponent('2024-05-09T00:00:00+00:00')}`,
        { identity: admin },
      );
      expect(window.body.items.length).toBeGreaterThan(0);
      for (const item of window.body.items) {
        expect(item.at >= '2024-05-08T00:00:00.000Z' && item.at < '2024-05-09T00:00:00.000Z').toBe(true);
      }
      for (const query of ['pageSize=0', 'from=yesterday', 'actorId=me', 'unknown=1']) {
        const bad = await api.call('GET', `/api/auth/admin/audit-log?${query}`, { identity: admin });
        expect(bad.status, query).toBe(400);
      }
    });

    it('takes records from other services and redacts secrets in their details', async () => {
      const answer = await api.call('POST', '/api/auth/internal/audit', {
        body: {
          actor: { userId: admin.userId, username: admin.username },
          action: 'node.create',
          targetType: 'node',
          targetId: 'node-abc',
          details: { name: 'edge 1', nodeToken: 'svc_nt_secret', nested: { password: 'p4ss' } },
          clientIp: '203.0.113.99',
        },
      });
      expect(answer.status).toBe(204);
      const found = await api.call<{ items: Record<string, unknown>[] }>(
        'GET',
        '/api/auth/admin/audit-log?action=node.create',
        { identity: admin },
      );
      expect(found.body.items[0]).toMatchObject({
        actorId: admin.userId,
        actorName: admin.username,
        targetId: 'node-abc',
        clientIp: '203.0.113.99',
        details: { name: 'edge 1', nodeToken: '[redacted]', nested: { password: '[redacted]' } },
      });
      const bad = await api.call('POST', '/api/auth/internal/audit', {
        body: { actor: null, action: 'Not An Action' },
      });
      expect(bad.status).toBe(400);
      const unauthorized = await api.call('POST', '/api/auth/internal/audit', {
        body: { actor: null, action: 'node.create' },
        serviceToken: false,
      });
      expect(unauthorized.status).toBe(401);
    });

    it('serves the default branding before sign-in', async () => {
      const branding = await api.call('GET', '/api/auth/branding');
      expect(branding).toMatchObject({ status: 200, body: { systemName: 'SVC Media', logoUrl: null } });
    });
  });
});

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function quota(overrides: Record<string, unknown>): Record<string, unknown> {
  return { enabled: true, amount: 1, unit: 'GB', period: 'day', ...overrides };
}

// Two user-service instances on one PostgreSQL database and one Redis (PGlite admits one opener, so the
// embedded backend has no second instance). installBackends() fails in CI when the variables are missing.
const shared = installBackends().filter((backend) => backend.label === 'postgres+redis');

describe.each(shared)('two user-service instances sharing $label', (backend) => {
  const clock = new ManualClock();
  const keyPrefix = `svc-test-shared:${randomUUID()}:`;
  let first: TestInstall;
  let second: TestInstall;

  beforeAll(async () => {
    first = await startTestInstall([createUserComponent], backend.env, { clock, keyPrefix });
    second = await startTestInstall([createUserComponent], backend.env, { clock, keyPrefix });
  });

  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    await backend.cleanup();
  });

  it('agree on the login lock and on the first administrator', async () => {
    const a = new UserServiceClient(first);
    const b = new UserServiceClient(second);
    const setups = await Promise.all(
      [a, b].map((api, i) =>
        api.call('POST', '/api/auth/setup/admin', {
          body: { username: `root${i}`, password: 'root password' },
        }),
      ),
    );
    expect(setups.map((answer) => answer.status).sort()).toEqual([201, 409]);
    const username = (setups.find((answer) => answer.status === 201)!.body as { user: { username: string } })
      .user.username;

    const attempt = (api: UserServiceClient, password: string) =>
      api.call('POST', '/api/auth/login', {
        body: { username, password, client: 'portal' },
        clientIp: '198.51.100.200',
      });
    for (const api of [a, b, a, b]) expect((await attempt(api, 'wrong password')).status).toBe(401);
    expect((await attempt(a, 'wrong password')).status).toBe(401);
    const locked = await attempt(b, 'root password');
    expect(locked).toMatchObject({ status: 429, body: { error: { code: 'LOGIN_LOCKED' } } });
    expect(locked.headers['retry-after']).toBe('60');
    clock.advance(60_000);
    expect((await attempt(b, 'root password')).status).toBe(200);
  });
});
