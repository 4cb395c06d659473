import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AuditLogResponse,
  DefaultNodeAccessPolicyResponse,
  DefaultQuotaPolicy,
  NodeAccess,
  UserDetail,
} from '@svc/contracts';
import { installBackends } from '../../../support/install-backends.js';
import { PASSWORD, startSettingsInstall, type SettingsInstall } from './entrance.js';

const PLAY_AGENT = 'node-local-play-agent';

// Defaults for users created afterwards (system configuration page), through the console entrance.
describe.each(installBackends())('default policies for new users on $label', (backend) => {
  let env: SettingsInstall;
  let endpointId: string;
  let settingsToken: string;
  let userAdminToken: string;

  const detail = async (id: string) => {
    const answer = await env.admin<UserDetail>('GET', `/api/auth/admin/users/${id}`);
    expect(answer.status).toBe(200);
    return answer.body;
  };
  const setNodeAccessPolicy = (body: unknown, token = env.adminToken) =>
    env.api<DefaultNodeAccessPolicyResponse>('PUT', '/api/auth/admin/node-access-policy', {
      admin: token,
      body,
    });

  beforeAll(async () => {
    env = await startSettingsInstall(backend.env);
    endpointId = await env.createEndpoint('play.example.com');
    await env.createUser('settings.admin', { permissions: ['settings'] });
    await env.createUser('user.admin', { permissions: ['user'] });
    settingsToken = await env.login('settings.admin', 'console');
    userAdminToken = await env.login('user.admin', 'console');
  });

  afterAll(async () => {
    await env?.stop();
    await backend.cleanup();
  });

  it('needs the settings permission', async () => {
    for (const route of [
      '/api/auth/admin/traffic-quotas/default-policy',
      '/api/auth/admin/node-access-policy',
    ]) {
      expect((await env.api('GET', route)).status, route).toBe(401);
      expect((await env.api('GET', route, { admin: userAdminToken })).status, route).toBe(403);
      expect((await env.api('GET', route, { admin: settingsToken })).status, route).toBe(200);
    }
    const portal = await env.login('settings.admin', 'portal');
    // Console routes take the admin token only.
    expect((await env.api('GET', '/api/auth/admin/node-access-policy', { bearer: portal })).status).toBe(401);
  });

  it('default quota policy: only users created afterwards get it', async () => {
    const initial = await env.admin<DefaultQuotaPolicy>(
      'GET',
      '/api/auth/admin/traffic-quotas/default-policy',
    );
    expect(initial.body).toEqual({ total: null, routes: [] });
    const existing = await env.createUser('quota.before');

    const policy: DefaultQuotaPolicy = {
      total: { enabled: true, amount: 50, unit: 'GB', period: 'month' },
      routes: [
        { kind: 'node', id: PLAY_AGENT, enabled: true, amount: 500, unit: 'MB', period: 'day' },
        { kind: 'endpoint', id: endpointId, enabled: false, amount: 2, unit: 'GB', period: 'week' },
      ],
    };
    const saved = await env.api<DefaultQuotaPolicy>('PUT', '/api/auth/admin/traffic-quotas/default-policy', {
      admin: settingsToken,
      body: policy,
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual(policy);
    expect((await env.admin('GET', '/api/auth/admin/traffic-quotas/default-policy')).body).toEqual(policy);

    expect((await detail(existing)).quotas).toEqual({ total: null, routes: [] });
    const created = await env.createUser('quota.after');
    // The user's copy (user management lists route quotas in its own order).
    const copied = (await detail(created)).quotas;
    expect(copied.total).toEqual(policy.total);
    expect(copied.routes).toHaveLength(policy.routes.length);
    expect(copied.routes).toEqual(expect.arrayContaining(policy.routes));

    // Unknown routes and invalid amounts are refused; nothing changes.
    const unknown = await env.admin('PUT', '/api/auth/admin/traffic-quotas/default-policy', {
      total: null,
      routes: [{ kind: 'node', id: 'node-gone-away', enabled: true, amount: 1, unit: 'GB', period: 'day' }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.error).toMatchObject({
      code: 'UNKNOWN_NODE',
      details: { unknown: [{ kind: 'node', id: 'node-gone-away' }] },
    });
    const invalid = await env.admin('PUT', '/api/auth/admin/traffic-quotas/default-policy', {
      total: { enabled: true, amount: 0, unit: 'GB', period: 'day' },
      routes: [],
    });
    expect(invalid.status).toBe(400);
    expect((await env.admin('GET', '/api/auth/admin/traffic-quotas/default-policy')).body).toEqual(policy);

    const audit = await env.admin<AuditLogResponse>(
      'GET',
      '/api/auth/admin/audit-log?action=settings.default-quota-policy',
    );
    // Before/after of the changed fields: the first policy replaced "no quota, no routes".
    expect(audit.body.items[0]).toMatchObject({
      actorName: 'settings.admin',
      details: { before: { routes: [] }, after: { routes: policy.routes } },
    });
  });

  it('default node access policy: mode and list together, warnings, only users created afterwards', async () => {
    const initial = await env.admin<DefaultNodeAccessPolicyResponse>(
      'GET',
      '/api/auth/admin/node-access-policy',
    );
    expect(initial.body).toEqual({ mode: 'ALL', entries: [], warnings: [] });
    const existing = await env.createUser('access.before');

    // An ALLOW_LIST with only a manual address: saved, with a warning.
    const endpointOnly = await setNodeAccessPolicy({
      mode: 'ALLOW_LIST',
      entries: [{ kind: 'endpoint', id: endpointId }],
    });
    expect(endpointOnly.status).toBe(200);
    expect(endpointOnly.body).toMatchObject({
      mode: 'ALLOW_LIST',
      entries: [{ kind: 'endpoint', id: endpointId }],
      warnings: [{ code: 'NO_PLAY_AGENT_NODE' }],
    });
    expect((await setNodeAccessPolicy({ mode: 'ALLOW_LIST', entries: [] })).body.warnings).toEqual([
      expect.objectContaining({ code: 'NO_PLAY_AGENT_NODE' }),
    ]);
    expect((await setNodeAccessPolicy({ mode: 'NONE' })).body).toMatchObject({
      mode: 'NONE',
      entries: [],
      warnings: [{ code: 'NONE_FOR_NEW_USERS' }],
    });

    const policy: NodeAccess = {
      mode: 'ALLOW_LIST',
      entries: [
        { kind: 'node', id: PLAY_AGENT },
        { kind: 'endpoint', id: endpointId },
      ],
    };
    const saved = await setNodeAccessPolicy(policy, settingsToken);
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ ...policy, warnings: [] });
    expect((await env.admin('GET', '/api/auth/admin/node-access-policy')).body).toEqual({
      ...policy,
      warnings: [],
    });

    expect((await detail(existing)).nodeAccess).toEqual({ mode: 'ALL', entries: [] });
    expect((await detail(await env.createUser('access.after'))).nodeAccess).toEqual(policy);

    // Refused without a change: entries outside ALLOW_LIST, duplicates, a wrong kind, an unknown node.
    for (const body of [
      { mode: 'ALL', entries: [{ kind: 'node', id: PLAY_AGENT }] },
      {
        mode: 'ALLOW_LIST',
        entries: [
          { kind: 'node', id: PLAY_AGENT },
          { kind: 'node', id: PLAY_AGENT },
        ],
      },
      { mode: 'ALLOW_LIST', entries: [{ kind: 'node', id: endpointId }] },
      { mode: 'ALLOW_LIST', entries: [{ kind: 'node', id: 'node-gone-away' }] },
      { mode: 'SOME' },
      { entries: [] },
    ]) {
      const refused = await setNodeAccessPolicy(body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    expect((await env.admin('GET', '/api/auth/admin/node-access-policy')).body).toEqual({
      ...policy,
      warnings: [],
    });
  });

  it('a registration racing with changes of the policy gets one whole policy, never half of one', async () => {
    const listed: NodeAccess = {
      mode: 'ALLOW_LIST',
      entries: [
        { kind: 'node', id: PLAY_AGENT },
        { kind: 'endpoint', id: endpointId },
      ],
    };
    const all: NodeAccess = { mode: 'ALL', entries: [] };
    const none: NodeAccess = { mode: 'NONE', entries: [] };
    const policies = [listed, all, listed, none];

    // The policy keeps changing while all the accounts are created.
    let creating = true;
    const changes = (async () => {
      for (let round = 0; creating || round < policies.length; round += 1) {
        const answer = await setNodeAccessPolicy(policies[round % policies.length]);
        expect(answer.status).toBe(200);
      }
    })();
    const creations = Array.from({ length: 30 }, async (_unused, index) => {
      const created = await env.api<{ id: string }>('POST', '/api/auth/admin/users', {
        admin: env.adminToken,
        body: { username: `race.${index}`, password: PASSWORD },
      });
      expect(created.status).toBe(201);
      return created.body.id;
    });
    const ids = await Promise.all(creations).finally(() => (creating = false));
    await changes;

    const seen = new Set<string>();
    for (const id of ids) {
      const access = (await detail(id)).nodeAccess;
      const whole = [listed, all, none].some((policy) => JSON.stringify(policy) === JSON.stringify(access));
      expect(whole, JSON.stringify(access)).toBe(true);
      seen.add(access.mode);
    }
    // The creations really overlapped with changes (at least two different policies were copied).
    expect(seen.size).toBeGreaterThan(1);
  });
});
