import { afterAll, describe, expect, it } from 'vitest';
import type { Identity } from '@svc/contracts';
import { createLogger } from '../../../src/platform/logger.js';
import { MemoryCache } from '../../../src/platform/cache/index.js';
import { PasswordHasher } from '../../../src/services/user/auth/password-hasher.js';
import type { UserDatabase } from '../../../src/services/user/user.db.js';
import { userMigrations } from '../../../src/services/user/migrations/index.js';
import { createUserServices } from '../../../src/services/user/user.component.js';
import { testBackends } from '../../support/databases.js';
import { FakeNodeDirectory, FakeUploadedImages } from './fakes.js';
import { ManualClock } from './support.js';

describe.each(testBackends())('default policies for new users on $label', (backend) => {
  afterAll(() => backend.cleanup());

  it('gives each new user a copy of the defaults in force; later changes never touch existing users', async () => {
    const database = await backend.open<UserDatabase>('svc_user', userMigrations);
    const clock = new ManualClock();
    const services = createUserServices({
      database,
      cache: new MemoryCache(clock),
      clock,
      logger: createLogger({ level: 'silent', component: 'test' }),
      uploads: new FakeUploadedImages(),
      directory: new FakeNodeDirectory({
        'node-local-play-agent': 'svc-play-agent',
        'node-proxy-1': 'manual-play-agent-endpoint',
      }),
      hasher: new PasswordHasher({ N: 1024, r: 8, p: 1 }),
    });
    const root = await services.setup.createFirstAdmin(
      { username: 'root', password: 'root password' },
      '::1',
    );
    const actor = {
      identity: {
        userId: root.id,
        username: 'root',
        role: 'admin',
        permissions: [],
        tokenKind: 'admin',
        tokenId: 't',
        clientIp: '::1',
      } satisfies Identity,
      clientIp: '::1',
    };

    // Absent defaults: no quota, every node, every library.
    expect(await services.defaults.get()).toEqual({
      quotas: { total: null, routes: [] },
      nodeAccess: { mode: 'ALL', entries: [] },
      libraryAccess: { mode: 'ALL', libraryIds: [] },
    });
    const before = await services.users.create(actor, { username: 'before', password: 'long password' });

    const quotas = {
      total: { enabled: true, amount: 10, unit: 'GB' as const, period: 'month' as const },
      routes: [
        {
          kind: 'endpoint' as const,
          id: 'node-proxy-1',
          enabled: true,
          amount: 500,
          unit: 'MB' as const,
          period: 'day' as const,
        },
      ],
    };
    const nodeAccess = {
      mode: 'ALLOW_LIST' as const,
      entries: [{ kind: 'node' as const, id: 'node-local-play-agent' }],
    };
    const libraryAccess = {
      mode: 'ALLOW_LIST' as const,
      libraryIds: ['6f1c1a52-8a55-4b0e-9d0c-2b8f4f0d1e01'],
    };
    await services.defaults.setQuotaPolicy(actor, quotas);
    await services.defaults.setNodeAccessPolicy(actor, nodeAccess);
    await services.defaults.setLibraryAccessPolicy(actor, libraryAccess);
    await expect(
      services.defaults.setNodeAccessPolicy(actor, {
        mode: 'ALLOW_LIST',
        entries: [{ kind: 'node', id: 'node-gone' }],
      }),
    ).rejects.toMatchObject({ code: 'UNKNOWN_NODE' });
    expect(await services.defaults.get()).toEqual({ quotas, nodeAccess, libraryAccess });

    const after = await services.users.create(actor, { username: 'after', password: 'long password' });
    expect(await services.users.get(before.id)).toMatchObject({
      quotas: { total: null, routes: [] },
      nodeAccess: { mode: 'ALL', entries: [] },
      libraryAccess: { mode: 'ALL', libraryIds: [] },
    });
    expect(await services.users.get(after.id)).toMatchObject({ quotas, nodeAccess, libraryAccess });

    // Changing the defaults again leaves "after" with its copy; a newer user gets the new defaults.
    await services.defaults.setQuotaPolicy(actor, { total: null, routes: [] });
    await services.defaults.setNodeAccessPolicy(actor, { mode: 'NONE', entries: [] });
    await services.defaults.setLibraryAccessPolicy(actor, { mode: 'ALL', libraryIds: [] });
    expect(await services.users.get(after.id)).toMatchObject({ quotas, nodeAccess, libraryAccess });
    const latest = await services.users.create(actor, { username: 'latest', password: 'long password' });
    expect(await services.users.get(latest.id)).toMatchObject({
      quotas: { total: null, routes: [] },
      nodeAccess: { mode: 'NONE', entries: [] },
      libraryAccess: { mode: 'ALL', libraryIds: [] },
    });

    // A user's own change does not flow back into the defaults either.
    await services.access.setNodeAccess(actor, after.id, { mode: 'NONE', entries: [] });
    expect((await services.defaults.get()).nodeAccess).toEqual({ mode: 'NONE', entries: [] });
    const audit = await services.audit.list({ page: 1, pageSize: 100 });
    expect(audit.items.map((item) => item.action)).toContain('settings.default-quota-policy');
    expect(
      audit.items.find((item) => item.action === 'settings.default-library-access-policy'),
    ).toBeDefined();
    await database.close();
  });
});
