import { afterAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/platform/cache/index.js';
import { AppError } from '../../../src/platform/http/errors.js';
import { PasswordHasher } from '../../../src/services/user/auth/password-hasher.js';
import { SetupService } from '../../../src/services/user/accounts/setup.service.js';
import type { UserDatabase } from '../../../src/services/user/user.db.js';
import { userMigrations } from '../../../src/services/user/migrations/index.js';
import { userRepositories, type Transactor } from '../../../src/services/user/user-repositories.js';
import { testBackends } from '../../support/databases.js';

const clock: Clock = { now: () => Date.now() };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(testBackends())('first administrator on $label', (backend) => {
  afterAll(() => backend.cleanup());

  it('creates exactly one administrator even when the transactions overlap', async () => {
    const database = await backend.open<UserDatabase>('svc_user', userMigrations);
    const { db } = database;
    // Each transaction dawdles after it checked for an administrator, so that without the lock every one
    // of them would see none and create one.
    const slow: Transactor = (work) =>
      db.transaction().execute(async (trx) => {
        const repositories = userRepositories(trx);
        const check = repositories.accounts.adminExists.bind(repositories.accounts);
        repositories.accounts.adminExists = async () => {
          const exists = await check();
          await sleep(300);
          return exists;
        };
        return work(repositories);
      });
    const setup = new SetupService(
      userRepositories(db).accounts,
      slow,
      new PasswordHasher({ N: 1024, r: 8, p: 1 }),
      clock,
    );
    const results = await Promise.allSettled(
      ['a', 'b', 'c'].map((name) =>
        setup.createFirstAdmin({ username: name, password: 'long password' }, '::1'),
      ),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    for (const result of results.filter((r) => r.status === 'rejected')) {
      expect(result.reason).toBeInstanceOf(AppError);
      expect(result.reason).toMatchObject({ statusCode: 409, code: 'SETUP_DONE' });
    }
    const admins = await db.selectFrom('users').select('username').where('role', '=', 'admin').execute();
    expect(admins).toHaveLength(1);
    await database.close();
  });
});
