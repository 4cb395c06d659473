import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { MemoryCache } from '../../../src/platform/cache/index.js';
import type { ServiceDatabase } from '../../../src/platform/db/index.js';
import { PasswordHasher } from '../../../src/services/user/auth/password-hasher.js';
import { createUserServices, type UserServices } from '../../../src/services/user/user.component.js';
import type { UserDatabase } from '../../../src/services/user/user.db.js';
import { quietLogger } from '../../support/databases.js';
import { FakeNodeDirectory, FakeUploadedImages } from './fakes.js';
import type { ManualClock } from './support.js';

/** A password hasher cheap enough for tests (the production cost would slow every sign-in down). */
export const fastHasher = (): PasswordHasher => new PasswordHasher({ N: 1024, r: 8, p: 1 });

/**
 * The user service's real services over a test database, with an in-memory cache on the test's clock;
 * uploads and the node directory (which knows no nodes) are fakes.
 */
export function userServicesOver(
  database: Pick<ServiceDatabase<UserDatabase>, 'db' | 'backend'>,
  options: { clock: ManualClock; hasher: PasswordHasher; logger?: Logger },
): UserServices {
  return createUserServices({
    database,
    cache: new MemoryCache(options.clock),
    clock: options.clock,
    logger: options.logger ?? quietLogger(),
    uploads: new FakeUploadedImages(),
    directory: new FakeNodeDirectory({}),
    hasher: options.hasher,
  });
}

/** Inserts a user account with no permissions and the password `long password 1`; answers its id. */
export async function insertPlainUser(
  services: UserServices,
  hasher: PasswordHasher,
  username: string,
  now: Date,
): Promise<string> {
  const user = await services.repositories.accounts.insert({
    id: randomUUID(),
    username,
    displayName: username,
    role: 'user',
    passwordHash: await hasher.hash('long password 1'),
    permissions: [],
    webPlayback: true,
    driveAPlayMode: 'proxy',
    now,
  });
  return user.id;
}
