import { describe, expect, it, vi } from 'vitest';
import { ALL_PERMISSIONS, type Identity } from '@svc/contracts';
import { MemoryCache } from '../../../src/platform/cache/index.js';
import { AppError } from '../../../src/platform/http/errors.js';
import { AuthService, LoginLockedError } from '../../../src/services/user/auth/auth.service.js';
import { tokenHash } from '../../../src/services/user/tokens/auth-tokens.js';
import { LoginLock } from '../../../src/services/user/auth/login-lock.js';
import { PasswordHasher } from '../../../src/services/user/auth/password-hasher.js';
import { FakeStore } from './fakes.js';
import { ManualClock } from './support.js';

const IP = '192.0.2.1';
/** Cheap parameters: these tests are about rules, not about the cost of scrypt. */
const hasher = new PasswordHasher({ N: 1024, r: 8, p: 1 });

async function setup() {
  const store = new FakeStore();
  const clock = new ManualClock();
  const published: { channel: string; message: string }[] = [];
  const revocations = {
    tokens: vi.fn(async (ids: string[]) => void published.push({ channel: 'tokens', message: ids.join() })),
    user: vi.fn(async (id: string) => void published.push({ channel: 'user', message: id })),
  };
  const lock = new LoginLock(new MemoryCache(clock), clock);
  const verify = vi.spyOn(hasher, 'verify');
  const verifyDummy = vi.spyOn(hasher, 'verifyDummy');
  const auth = new AuthService({
    accounts: store.repositories.accounts,
    tokens: store.repositories.tokens,
    transact: store.transact,
    hasher,
    lock,
    revocations,
    clock,
  });
  const add = async (username: string, password: string, extra: Partial<{ role: 'admin' | 'user' }> = {}) => {
    const row = await store.repositories.accounts.insert({
      id: crypto.randomUUID(),
      username,
      displayName: username,
      role: extra.role ?? 'user',
      passwordHash: await hasher.hash(password),
      permissions: [],
      webPlayback: true,
      driveAPlayMode: 'proxy',
      now: new Date(clock.now()),
    });
    return row;
  };
  verify.mockClear();
  verifyDummy.mockClear();
  return { store, clock, auth, add, verify, verifyDummy, revocations, lock };
}

const login = (
  auth: AuthService,
  username: string,
  password: string,
  client: 'console' | 'portal' = 'portal',
) => auth.login({ username, password, client }, IP);

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'OK';
  } catch (error) {
    return error instanceof AppError ? error.code : String(error);
  }
}

describe('AuthService sign-in', () => {
  it('hashes a dummy password for unknown users, so they cost the same as a wrong password', async () => {
    const { auth, add, verify, verifyDummy } = await setup();
    await add('ann', 'ann password');
    expect(await codeOf(login(auth, 'ghost', 'whatever'))).toBe('INVALID_CREDENTIALS');
    expect(verifyDummy).toHaveBeenCalledTimes(1);
    expect(await codeOf(login(auth, 'ann', 'wrong'))).toBe('INVALID_CREDENTIALS');
    expect(verify).toHaveBeenCalled();
  });

  it('refuses a locked pair with 429 before looking at the password', async () => {
    const { auth, add, verify, verifyDummy } = await setup();
    await add('ann', 'ann password');
    for (let i = 0; i < 4; i++) expect(await codeOf(login(auth, 'ann', 'wrong'))).toBe('INVALID_CREDENTIALS');
    // The fifth failure still answers 401 and locks.
    expect(await codeOf(login(auth, 'ann', 'wrong'))).toBe('INVALID_CREDENTIALS');
    verify.mockClear();
    verifyDummy.mockClear();
    const locked = await login(auth, 'ann', 'ann password').catch((error: unknown) => error);
    expect(locked).toBeInstanceOf(LoginLockedError);
    expect(locked).toMatchObject({ statusCode: 429, code: 'LOGIN_LOCKED', retryAfterSeconds: 60 });
    expect(verify).not.toHaveBeenCalled();
    expect(verifyDummy).not.toHaveBeenCalled();
  });

  it('counts a disabled account like a wrong password', async () => {
    const { auth, add, store, lock } = await setup();
    const row = await add('ann', 'ann password');
    await store.repositories.accounts.update(row.id, { disabled: true }, new Date());
    for (let i = 0; i < 5; i++)
      expect(await codeOf(login(auth, 'ann', 'ann password'))).toBe('INVALID_CREDENTIALS');
    expect(await lock.lockedForMs(IP, 'ann')).toBeGreaterThan(0);
  });

  it('resets the failure count on success', async () => {
    const { auth, add } = await setup();
    await add('ann', 'ann password');
    for (let i = 0; i < 4; i++) await codeOf(login(auth, 'ann', 'wrong'));
    expect(await codeOf(login(auth, 'ann', 'ann password'))).toBe('OK');
    for (let i = 0; i < 4; i++) await codeOf(login(auth, 'ann', 'wrong'));
    expect(await codeOf(login(auth, 'ann', 'ann password'))).toBe('OK');
  });

  it('lets only administrators and users with a menu permission into the console', async () => {
    const { auth, add, store } = await setup();
    const plain = await add('plain', 'plain password');
    await add('boss', 'boss password', { role: 'admin' });
    expect(await codeOf(login(auth, 'plain', 'plain password', 'console'))).toBe('CONSOLE_NOT_ALLOWED');
    expect(store.tokens.size).toBe(0);
    await store.repositories.accounts.update(plain.id, { permissions: ['library'] }, new Date());
    const answer = await login(auth, 'plain', 'plain password', 'console');
    expect(answer).toHaveProperty('adminToken');
    const boss = await login(auth, 'boss', 'boss password', 'portal');
    expect(boss).not.toHaveProperty('adminToken');
    expect(boss.user.permissions).toEqual([...ALL_PERMISSIONS]);
  });

  it('stores only SHA-256 hashes of the tokens it hands out', async () => {
    const { auth, add, store } = await setup();
    await add('ann', 'ann password');
    const answer = await login(auth, 'ann', 'ann password');
    const stored = [...store.tokens.values()];
    expect(stored).toHaveLength(1);
    expect(stored[0]!.token_hash).toBe(tokenHash(answer.accessToken));
    expect(JSON.stringify(stored)).not.toContain(answer.accessToken);
  });
});

describe('AuthService introspection', () => {
  it('answers active until expiry and writes last-used at most once a minute', async () => {
    const { auth, add, clock, store } = await setup();
    await add('ann', 'ann password');
    const { accessToken } = await login(auth, 'ann', 'ann password');
    expect(await auth.introspect({ token: accessToken, kind: 'access' })).toMatchObject({ active: true });
    expect(store.called('tokens.touch')).toBe(1);
    clock.advance(59_000);
    await auth.introspect({ token: accessToken, kind: 'access' });
    expect(store.called('tokens.touch')).toBe(1);
    clock.advance(1_000);
    await auth.introspect({ token: accessToken, kind: 'access' });
    expect(store.called('tokens.touch')).toBe(2);
    clock.advance(30 * 24 * 60 * 60 * 1000);
    expect(await auth.introspect({ token: accessToken, kind: 'access' })).toEqual({ active: false });
  });

  it('answers inactive for a revoked token or a disabled account, and announces revocations', async () => {
    const { auth, add, store, revocations } = await setup();
    const row = await add('ann', 'ann password');
    const first = await login(auth, 'ann', 'ann password');
    const found = await auth.introspect({ token: first.accessToken, kind: 'access' });
    if (!found.active) throw new Error('expected an active token');
    const identity: Identity = {
      userId: row.id,
      username: 'ann',
      role: 'user',
      permissions: [],
      tokenKind: 'access',
      tokenId: found.tokenId,
      clientIp: IP,
    };
    await auth.logout(identity);
    expect(revocations.tokens).toHaveBeenCalledWith([found.tokenId]);
    expect(await auth.introspect({ token: first.accessToken, kind: 'access' })).toEqual({ active: false });

    const second = await login(auth, 'ann', 'ann password');
    await store.repositories.accounts.update(row.id, { disabled: true }, new Date());
    expect(await auth.introspect({ token: second.accessToken, kind: 'access' })).toEqual({ active: false });
  });

  it('revokes all tokens on a password change, and counts wrong current passwords towards the lock', async () => {
    const { auth, add, revocations, lock } = await setup();
    const row = await add('ann', 'ann password');
    const { accessToken } = await login(auth, 'ann', 'ann password');
    const identity: Identity = {
      userId: row.id,
      username: 'ann',
      role: 'user',
      permissions: [],
      tokenKind: 'access',
      tokenId: 'x',
      clientIp: IP,
    };
    for (let i = 0; i < 5; i++) {
      expect(
        await codeOf(
          auth.changePassword(identity, { currentPassword: 'nope', newPassword: 'new password' }, IP),
        ),
      ).toBe('INVALID_CURRENT_PASSWORD');
    }
    expect(await lock.lockedForMs(IP, 'ann')).toBeGreaterThan(0);
    expect(
      await codeOf(
        auth.changePassword(identity, { currentPassword: 'ann password', newPassword: 'new password' }, IP),
      ),
    ).toBe('LOGIN_LOCKED');
    expect((await auth.introspect({ token: accessToken, kind: 'access' })).active).toBe(true);

    const elsewhere = '192.0.2.99';
    await auth.changePassword(
      identity,
      { currentPassword: 'ann password', newPassword: 'new password' },
      elsewhere,
    );
    expect(revocations.user).toHaveBeenCalledWith(row.id);
    expect(await auth.introspect({ token: accessToken, kind: 'access' })).toEqual({ active: false });
  });
});
