import { describe, expect, it, vi } from 'vitest';
import type { DelegablePermission, Identity } from '@svc/contracts';
import { AppError } from '../../../src/platform/http/errors.js';
import { AccessPolicyService } from '../../../src/services/user/playback-access/access-policy.service.js';
import type { UserRow } from '../../../src/services/user/accounts/accounts.repository.js';
import { HttpNodeDirectory } from '../../../src/services/user/playback-access/node-directory.js';
import { PasswordHasher } from '../../../src/services/user/auth/password-hasher.js';
import { UsersService } from '../../../src/services/user/accounts/users.service.js';
import { FakeNodeDirectory, FakeStore } from './fakes.js';
import { ManualClock } from './support.js';

const hasher = new PasswordHasher({ N: 1024, r: 8, p: 1 });

function setup() {
  const store = new FakeStore();
  const clock = new ManualClock();
  const revocations = { user: vi.fn(async () => {}), tokens: vi.fn(async () => {}) };
  const directory = new FakeNodeDirectory({
    'node-local-play-agent': 'svc-play-agent',
    'node-local-storage': 'svc-control-storage',
    'node-proxy-1': 'manual-play-agent-endpoint',
  });
  const users = new UsersService({
    accounts: store.repositories.accounts,
    access: store.repositories.access,
    transact: store.transact,
    hasher,
    revocations,
    clock,
  });
  const access = new AccessPolicyService({
    accounts: store.repositories.accounts,
    access: store.repositories.access,
    usage: store.repositories.usage,
    transact: store.transact,
    directory,
    clock,
    settings: store.repositories.settings,
  });
  const add = async (username: string, role: 'admin' | 'user', permissions: DelegablePermission[] = []) =>
    store.repositories.accounts.insert({
      id: crypto.randomUUID(),
      username,
      displayName: username,
      role,
      passwordHash: 'scrypt$x',
      permissions,
      webPlayback: true,
      driveAPlayMode: 'proxy',
      now: new Date(clock.now()),
    });
  const actor = (row: UserRow) => ({
    identity: {
      userId: row.id,
      username: row.username,
      role: row.role,
      permissions: row.permissions,
      tokenKind: 'admin',
      tokenId: 't',
      clientIp: '192.0.2.5',
    } satisfies Identity,
    clientIp: '192.0.2.5',
  });
  return { store, users, access, add, actor, directory, revocations };
}

async function failure(promise: Promise<unknown>): Promise<{ status: number; code: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return { status: error.statusCode, code: error.code };
    throw error;
  }
  throw new Error('expected a failure');
}

describe('UsersService rules', () => {
  it('lets only administrators create administrators', async () => {
    const { users, add, actor, store } = setup();
    const manager = await add('manager', 'user', ['user', 'dashboard']);
    expect(
      await failure(
        users.create(actor(manager), { username: 'x', password: 'long password', role: 'admin' }),
      ),
    ).toEqual({ status: 403, code: 'FORBIDDEN' });
    expect(store.users.size).toBe(1);
    const root = await add('root', 'admin');
    const created = await users.create(actor(root), {
      username: 'x',
      password: 'long password',
      role: 'admin',
    });
    expect(created.role).toBe('admin');
  });

  it('lets a non-administrator grant only keys it holds, and keeps keys already granted', async () => {
    const { users, add, actor, store } = setup();
    const manager = await add('manager', 'user', ['user', 'dashboard']);
    const target = await add('target', 'user', ['library']);
    expect(await failure(users.setPermissions(actor(manager), target.id, ['dashboard', 'node']))).toEqual({
      status: 403,
      code: 'FORBIDDEN',
    });
    expect(store.users.get(target.id)!.permissions).toEqual(['library']);
    expect(store.audit).toEqual([]);
    // 'library' is already the target's: keeping it is no grant.
    const updated = await users.setPermissions(actor(manager), target.id, [
      'library',
      'dashboard',
      'dashboard',
    ]);
    expect(updated.permissions).toEqual(['library', 'dashboard']);
    expect(store.audit.map((r) => r.action)).toEqual(['user.permissions']);
  });

  it('keeps non-administrators away from administrators', async () => {
    const { users, access, add, actor, store } = setup();
    const manager = await add('manager', 'user', ['user']);
    const root = await add('root', 'admin');
    for (const attempt of [
      users.update(actor(manager), root.id, { displayName: 'x' }),
      users.update(actor(manager), root.id, { password: 'new password 1' }),
      users.delete(actor(manager), root.id),
      users.setPermissions(actor(manager), root.id, []),
      access.setNodeAccess(actor(manager), root.id, { mode: 'NONE', entries: [] }),
      access.setQuotas(actor(manager), root.id, { total: null, routes: [] }),
    ]) {
      expect(await failure(attempt)).toEqual({ status: 403, code: 'FORBIDDEN' });
    }
    expect(store.called('accounts.update') + store.called('accounts.delete')).toBe(0);
    expect(store.audit).toEqual([]);
  });

  it('refuses deleting or disabling yourself and the last enabled administrator', async () => {
    const { users, add, actor, store } = setup();
    const root = await add('root', 'admin');
    expect(await failure(users.delete(actor(root), root.id))).toEqual({ status: 409, code: 'SELF_ACTION' });
    expect(await failure(users.update(actor(root), root.id, { disabled: true }))).toEqual({
      status: 409,
      code: 'SELF_ACTION',
    });
    const other = await add('other', 'admin');
    // The race the administrators lock guards: root was disabled a moment ago, but its request already
    // passed the actor check. Deleting or disabling "other" would leave no enabled administrator.
    await store.repositories.accounts.update(root.id, { disabled: true }, new Date());
    const staleRoot = { ...store.users.get(root.id)!, disabled: false };
    vi.spyOn(store.repositories.accounts, 'findById').mockImplementation(async (id) =>
      id === root.id ? staleRoot : store.users.get(id),
    );
    expect(await failure(users.delete(actor(root), other.id))).toEqual({ status: 409, code: 'LAST_ADMIN' });
    expect(await failure(users.update(actor(root), other.id, { disabled: true }))).toEqual({
      status: 409,
      code: 'LAST_ADMIN',
    });
    expect(store.users.get(other.id)).toMatchObject({ disabled: false });
    expect(store.called('accounts.lockAdministrators')).toBe(2);
    expect(store.audit).toEqual([]);
    // With root enabled again, deleting "other" is fine.
    await store.repositories.accounts.update(root.id, { disabled: false }, new Date());
    vi.restoreAllMocks();
    await users.delete(actor(root), other.id);
    expect(store.users.has(other.id)).toBe(false);
  });

  it('revokes tokens on a password reset or when disabling, and audits without the password', async () => {
    const { users, add, actor, store, revocations } = setup();
    const root = await add('root', 'admin');
    const target = await add('target', 'user');
    await users.update(actor(root), target.id, { displayName: 'T' });
    expect(revocations.user).not.toHaveBeenCalled();
    await users.update(actor(root), target.id, { password: 'a new password' });
    expect(revocations.user).toHaveBeenCalledWith(target.id);
    expect(store.called('tokens.revokeAllOfUser')).toBe(1);
    await users.update(actor(root), target.id, { disabled: true });
    expect(store.called('tokens.revokeAllOfUser')).toBe(2);
    expect(store.audit.map((r) => r.action)).toEqual(['user.update', 'user.password-reset', 'user.update']);
    expect(JSON.stringify(store.audit)).not.toContain('a new password');
  });
});

describe('AccessPolicyService node access and quotas', () => {
  it('checks routes against the node directory and writes nothing for unknown ones', async () => {
    const { access, add, actor, store, directory } = setup();
    const root = await add('root', 'admin');
    const target = await add('target', 'user');
    for (const entries of [
      [{ kind: 'node' as const, id: 'node-missing' }],
      [{ kind: 'node' as const, id: 'node-local-storage' }],
      [{ kind: 'endpoint' as const, id: 'node-local-play-agent' }],
      [{ kind: 'node' as const, id: 'node-proxy-1' }],
    ]) {
      const error = await access
        .setNodeAccess(actor(root), target.id, { mode: 'ALLOW_LIST', entries })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ statusCode: 400, code: 'UNKNOWN_NODE' });
      expect((error as Error).message).toContain(entries[0]!.id);
    }
    expect(
      await failure(
        access.setQuotas(actor(root), target.id, {
          total: null,
          routes: [
            { kind: 'endpoint', id: 'node-nope', enabled: true, amount: 1, unit: 'GB', period: 'day' },
          ],
        }),
      ),
    ).toEqual({ status: 400, code: 'UNKNOWN_NODE' });
    expect(store.called('access.setNodeAccess') + store.called('access.replaceQuotas')).toBe(0);
    expect(store.audit).toEqual([]);

    const entries = [
      { kind: 'node' as const, id: 'node-local-play-agent' },
      { kind: 'endpoint' as const, id: 'node-proxy-1' },
    ];
    await access.setNodeAccess(actor(root), target.id, { mode: 'ALLOW_LIST', entries });
    expect(store.nodeAccess.get(target.id)).toEqual({ mode: 'ALLOW_LIST', entries });
    expect(directory.asked.at(-1)).toEqual(['node-local-play-agent', 'node-proxy-1']);
    expect(store.audit.map((r) => r.action)).toEqual(['user.node-access']);
  });

  it('answers 503 when the config service cannot be reached', async () => {
    const directory = new HttpNodeDirectory('http://127.0.0.1:9', 'token');
    expect(await failure(directory.find(['node-a']))).toEqual({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
  });
});
