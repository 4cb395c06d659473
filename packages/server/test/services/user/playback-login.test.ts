import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_REVOKED_CHANNEL, type Identity, type PlaybackLoginResponse } from '@svc/contracts';
import { createConfigComponent } from '../../../src/services/config/config.component.js';
import { createGatewayComponent } from '../../../src/services/gateway/gateway.component.js';
import { createUserComponent } from '../../../src/services/user/user.component.js';
import type { UserDatabase } from '../../../src/services/user/user.db.js';
import { userMigrations } from '../../../src/services/user/migrations/index.js';
import { testBackends } from '../../support/databases.js';
import { installBackends } from '../../support/install-backends.js';
import { startTestInstall, waitFor, type TestInstall } from '../../support/runtime.js';
import { ManualClock, UserServiceClient, type Answer } from './support.js';
import { fastHasher, userServicesOver } from './user-services.js';

const anyString = expect.any(String) as unknown as string;
const ADMIN = { username: 'root', password: 'correct horse battery' };
const ALICE = { username: 'alice', password: 'alice password 1' };
const DAY = 24 * 60 * 60 * 1000;
const DEVICE = { client: 'Infuse', deviceName: 'Living room TV', deviceId: 'dev-0001', version: '7.7.1' };

describe.each(installBackends())('playback sign-in on $label', (backend) => {
  let install: TestInstall;
  let api: UserServiceClient;
  let admin: Identity;
  let aliceId: string;
  const clock = new ManualClock(Date.parse('2024-03-06T04:00:00.000Z'));
  const revoked: unknown[] = [];

  const playLogin = (
    overrides: Record<string, unknown> = {},
    options: { serviceToken?: boolean } = {},
  ): Promise<Answer<PlaybackLoginResponse & { error?: { code: string; details?: unknown } }>> =>
    api.call('POST', '/api/auth/internal/playback/login', {
      body: {
        ...ALICE,
        clientIp: '203.0.113.20',
        nodeId: 'node-local-play-agent',
        device: DEVICE,
        ...overrides,
      },
      ...options,
    });
  const createUser = async (body: Record<string, unknown>): Promise<string> => {
    const created = await api.call<{ id: string }>('POST', '/api/auth/admin/users', {
      identity: admin,
      body,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id;
  };
  /** A request to the gateway, the public entrance's only way in. */
  const viaGateway = async (method: string, path: string, headers: Record<string, string>) => {
    const response = await request(`${install.url('gateway')}${path}`, { method: method as 'GET', headers });
    const text = await response.body.text();
    return { status: response.statusCode, body: text ? (JSON.parse(text) as unknown) : undefined };
  };

  beforeAll(async () => {
    install = await startTestInstall(
      [createConfigComponent, createUserComponent, createGatewayComponent],
      backend.env,
      { clock },
    );
    api = new UserServiceClient(install);
    await install.context.cache.subscribe(AUTH_REVOKED_CHANNEL, (message) => {
      revoked.push(JSON.parse(message));
    });
    const setup = await api.call('POST', '/api/auth/setup/admin', { body: ADMIN });
    expect(setup.status).toBe(201);
    admin = await api.consoleIdentity(ADMIN.username, ADMIN.password);
    aliceId = await createUser(ALICE);
    // The gateway finds the user service through the registry.
    await waitFor(async () =>
      (await viaGateway('GET', '/api/auth/setup/status', {})).status === 200 ? true : undefined,
    );
  });

  afterAll(async () => {
    await install?.stop();
    await backend.cleanup();
  });

  it('signs a player in with a playback token that introspects as a playback token only', async () => {
    const login = await playLogin({ username: ' ALICE ' });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const body = login.body;
    expect(body.accessToken).toMatch(/^svc_ply_[A-Za-z0-9_-]{43}$/);
    expect(body.expiresAt).toBe(new Date(clock.now() + 365 * DAY).toISOString());
    expect(body.user).toEqual({
      id: aliceId,
      username: 'alice',
      role: 'user',
      disabled: false,
      createdAt: anyString,
      lastLoginAt: new Date(clock.now()).toISOString(),
    });
    expect(Object.keys(body).sort()).toEqual(['accessToken', 'expiresAt', 'tokenId', 'user']);

    expect(await api.introspect(body.accessToken, 'playback')).toEqual({
      active: true,
      userId: aliceId,
      username: 'alice',
      role: 'user',
      permissions: [],
      tokenId: body.tokenId,
      expiresAt: body.expiresAt,
      // The app and device it signed in with: requests carrying only the token are attributed to them.
      device: DEVICE,
    });
    expect(await api.introspect(body.accessToken, 'access')).toEqual({ active: false });
    expect(await api.introspect(body.accessToken, 'admin')).toEqual({ active: false });
    expect(await api.introspect(`svc_ply_${'A'.repeat(43)}`, 'playback')).toEqual({ active: false });

    const user = await api.call('GET', `/api/auth/internal/playback/users/${aliceId}`);
    expect(user).toMatchObject({ status: 200, body: body.user });
  });

  it('lets any enabled account play, administrators included', async () => {
    const login = await playLogin({ username: ADMIN.username, password: ADMIN.password });
    expect(login.status).toBe(200);
    expect(login.body.user).toMatchObject({ username: ADMIN.username, role: 'admin' });
    expect(await api.introspect(login.body.accessToken, 'playback')).toMatchObject({ active: true });
  });

  it('answers a wrong password, an empty password and an unknown user with 401 like the portal does', async () => {
    const clientIp = '192.0.2.60';
    const wrong = await playLogin({ password: 'not the password', clientIp });
    const empty = await playLogin({ password: '', clientIp });
    const unknown = await playLogin({ username: 'nobody', clientIp });
    const portal = await api.call('POST', '/api/auth/login', {
      body: { username: ALICE.username, password: 'not the password', client: 'portal' },
      clientIp: '192.0.2.61',
    });
    for (const answer of [wrong, empty, unknown]) {
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual(portal.body);
    }
    expect(portal.body).toMatchObject({ error: { code: 'INVALID_CREDENTIALS' } });
  });

  it('locks a (client IP, user name) pair after 5 failures, shared with the console sign-in', async () => {
    const clientIp = '198.51.100.7';
    for (let attempt = 1; attempt <= 5; attempt++) {
      const failed = await playLogin({ password: `wrong ${attempt}`, clientIp });
      expect(failed.status, `attempt ${attempt}`).toBe(401);
    }
    const locked = await playLogin({ clientIp });
    expect(locked.status).toBe(429);
    expect(locked.headers['retry-after']).toBe('60');
    expect(locked.body).toMatchObject({
      error: { code: 'LOGIN_LOCKED', details: { retryAfterSeconds: 60 } },
    });
    // The same pair is locked on the console too; another address or another name is not.
    const console = await api.call('POST', '/api/auth/login', {
      body: { ...ALICE, client: 'portal' },
      clientIp,
    });
    expect(console.status).toBe(429);
    expect((await playLogin({ clientIp: '198.51.100.8' })).status).toBe(200);
    expect((await playLogin({ username: ADMIN.username, password: ADMIN.password, clientIp })).status).toBe(
      200,
    );
    clock.advance(61_000);
    expect((await playLogin({ clientIp })).status).toBe(200);
  });

  it('refuses a disabled account, and its playback tokens stop working', async () => {
    const bobId = await createUser({ username: 'bob', password: 'bob password 1' });
    const login = await playLogin({ username: 'bob', password: 'bob password 1' });
    expect(login.status).toBe(200);
    const disable = await api.call('PATCH', `/api/auth/admin/users/${bobId}`, {
      identity: admin,
      body: { disabled: true },
    });
    expect(disable.status).toBe(200);
    expect(await api.introspect(login.body.accessToken, 'playback')).toEqual({ active: false });
    const again = await playLogin({ username: 'bob', password: 'bob password 1', clientIp: '192.0.2.70' });
    expect(again).toMatchObject({ status: 401, body: { error: { code: 'INVALID_CREDENTIALS' } } });
    const user = await api.call('GET', `/api/auth/internal/playback/users/${bobId}`);
    expect(user).toMatchObject({ status: 200, body: { id: bobId, disabled: true } });
  });

  it('revokes playback tokens when an administrator resets the password', async () => {
    const carolId = await createUser({ username: 'carol', password: 'carol password 1' });
    const login = await playLogin({ username: 'carol', password: 'carol password 1' });
    expect(await api.introspect(login.body.accessToken, 'playback')).toMatchObject({ active: true });
    const reset = await api.call('PATCH', `/api/auth/admin/users/${carolId}`, {
      identity: admin,
      body: { password: 'carol password 2' },
    });
    expect(reset.status).toBe(200);
    expect(await api.introspect(login.body.accessToken, 'playback')).toEqual({ active: false });
  });

  it('signs a player out: the token is revoked and the revocation published', async () => {
    const login = await playLogin();
    const { accessToken, tokenId } = login.body;
    const other = await playLogin({ device: { ...DEVICE, deviceId: 'dev-0002' } });
    const out = await api.call('POST', '/api/auth/internal/playback/logout', { body: { tokenId } });
    expect(out.status).toBe(204);
    expect(await api.introspect(accessToken, 'playback')).toEqual({ active: false });
    await waitFor(async () =>
      revoked.some((m) => JSON.stringify(m) === JSON.stringify({ tokenIds: [tokenId] })) ? true : undefined,
    );
    // Only that token: the same user's other player stays signed in.
    expect(await api.introspect(other.body.accessToken, 'playback')).toMatchObject({ active: true });
    // Again, or an unknown id: nothing to do, still 204.
    expect((await api.call('POST', '/api/auth/internal/playback/logout', { body: { tokenId } })).status).toBe(
      204,
    );
    const unknown = await api.call('POST', '/api/auth/internal/playback/logout', {
      body: { tokenId: randomUUID() },
    });
    expect(unknown.status).toBe(204);
    const bad = await api.call('POST', '/api/auth/internal/playback/logout', { body: { tokenId: 'x' } });
    expect(bad.status).toBe(400);
  });

  it('never revokes console or portal tokens through the playback sign-out', async () => {
    const portal = await api.call<{ accessToken: string }>('POST', '/api/auth/login', {
      body: { ...ALICE, client: 'portal' },
    });
    const identity = await api.identityOf(portal.body.accessToken, 'access');
    const out = await api.call('POST', '/api/auth/internal/playback/logout', {
      body: { tokenId: identity.tokenId },
    });
    expect(out.status).toBe(204);
    expect(await api.introspect(portal.body.accessToken, 'access')).toMatchObject({ active: true });
  });

  it('answers 404 for unknown users', async () => {
    for (const id of [randomUUID(), 'not-a-uuid', '0123456789abcdef0123456789abcdef']) {
      const answer = await api.call('GET', `/api/auth/internal/playback/users/${id}`);
      expect(answer, id).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    }
  });

  it('refuses the playback routes without the service token', async () => {
    const login = await playLogin({}, { serviceToken: false });
    expect(login.status).toBe(401);
    expect(login.body.accessToken).toBeUndefined();
    const logout = await api.call('POST', '/api/auth/internal/playback/logout', {
      body: { tokenId: randomUUID() },
      serviceToken: false,
    });
    expect(logout.status).toBe(401);
    const user = await api.call('GET', `/api/auth/internal/playback/users/${aliceId}`, {
      serviceToken: false,
    });
    expect(user.status).toBe(401);
    // Not reachable from outside either: the gateway has no route for it.
    const outside = await viaGateway('GET', `/api/auth/internal/playback/users/${aliceId}`, {});
    expect(outside.status).toBe(404);
  });

  it('refuses bad sign-in bodies with 400', async () => {
    const base = { ...ALICE, clientIp: '203.0.113.20', nodeId: 'n1', device: DEVICE };
    const { device: _device, ...noDevice } = base;
    const { nodeId: _nodeId, ...noNode } = base;
    for (const body of [
      noDevice,
      noNode,
      { ...base, username: '   ' },
      { ...base, clientIp: '' },
      { ...base, extra: true },
      { ...base, device: { ...DEVICE, version: 'v'.repeat(65) } },
    ]) {
      const answer = await api.call('POST', '/api/auth/internal/playback/login', { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('the gateway never accepts a playback token where admin or access tokens are required', async () => {
    const login = await playLogin({ username: ADMIN.username, password: ADMIN.password });
    const token = login.body.accessToken;
    expect(await api.introspect(token, 'playback')).toMatchObject({ active: true, role: 'admin' });
    for (const [path, headers] of [
      ['/api/auth/admin/users', { 'x-admin-token': token }],
      ['/api/auth/admin/users', { authorization: `Bearer ${token}` }],
      ['/api/auth/me', { authorization: `Bearer ${token}` }],
      ['/api/auth/me', { 'x-admin-token': token }],
    ] as const) {
      const answer = await viaGateway('GET', path, headers);
      expect(answer.status, `${path} ${Object.keys(headers)[0]}`).toBe(401);
    }
    // The same account's console token passes, so the refusals above are about the token kind.
    const console = await api.call<{ adminToken: string }>('POST', '/api/auth/login', {
      body: { ...ADMIN, client: 'console' },
    });
    const allowed = await viaGateway('GET', '/api/auth/admin/users', {
      'x-admin-token': console.body.adminToken,
    });
    expect(allowed.status).toBe(200);
  });

  it('playback tokens expire after 365 days', async () => {
    const login = await playLogin();
    clock.advance(365 * DAY - 1000);
    expect(await api.introspect(login.body.accessToken, 'playback')).toMatchObject({ active: true });
    clock.advance(1000);
    expect(await api.introspect(login.body.accessToken, 'playback')).toEqual({ active: false });
  });
});

describe.each(testBackends())('playback tokens in the database on $label', (backend) => {
  afterAll(() => backend.cleanup());

  it('migrates existing tokens and stores the device, node and last sign-in with a playback token', async () => {
    // A database as the previous version left it, with an account and a console token.
    const before = userMigrations.filter((m) => m.name < 'V004');
    const old = await backend.open<UserDatabase>('svc_user', before);
    const userId = randomUUID();
    const hasher = fastHasher();
    const hash = await hasher.hash(ALICE.password);
    await sql`
      INSERT INTO users (id, username, display_name, role, password_hash, created_at, updated_at)
      VALUES (${userId}, 'alice', 'alice', 'user', ${hash}, now(), now())
    `.execute(old.db);
    const oldToken = randomUUID();
    await sql`
      INSERT INTO auth_tokens (id, user_id, kind, token_hash, created_at, expires_at)
      VALUES (${oldToken}, ${userId}, 'access', 'abc', now(), now() + interval '1 day')
    `.execute(old.db);
    await old.close();

    const database = await backend.open<UserDatabase>('svc_user', userMigrations);
    const { db } = database;
    const kept = await db.selectFrom('auth_tokens').selectAll().where('id', '=', oldToken).executeTakeFirst();
    expect(kept).toMatchObject({ kind: 'access', client: null, device_id: null, node_id: null });
    const clock = new ManualClock(Date.parse('2024-05-01T10:00:00.000Z'));
    const services = userServicesOver(database, { clock, hasher });
    const createdBefore = (await services.repositories.accounts.findById(userId))!;
    const login = await services.playback.login({
      ...ALICE,
      clientIp: '203.0.113.5',
      nodeId: 'node-7',
      device: DEVICE,
    });
    const row = await db
      .selectFrom('auth_tokens')
      .selectAll()
      .where('id', '=', login.tokenId)
      .executeTakeFirst();
    expect(row).toMatchObject({
      user_id: userId,
      kind: 'playback',
      client: 'Infuse',
      device_name: 'Living room TV',
      device_id: 'dev-0001',
      client_version: '7.7.1',
      node_id: 'node-7',
      revoked_at: null,
    });
    expect(new Date(row!.expires_at).toISOString()).toBe('2025-05-01T10:00:00.000Z');
    const user = (await services.repositories.accounts.findById(userId))!;
    expect(new Date(user.last_login_at!).toISOString()).toBe('2024-05-01T10:00:00.000Z');
    // A sign-in is not a change of the account.
    expect(new Date(user.updated_at).getTime()).toBe(new Date(createdBefore.updated_at).getTime());
    // The kind is still checked by the database.
    await expect(
      sql`UPDATE auth_tokens SET kind = 'other' WHERE id = ${oldToken}`.execute(db),
    ).rejects.toThrow();
    await database.close();
  });
});
