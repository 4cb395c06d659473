import { randomUUID } from 'node:crypto';
import type { AccountRole, DelegablePermission, DriveAPlayMode } from '@svc/contracts';
import { errorCode } from '../../../platform/db/errors.js';
import { AppError } from '../../../platform/http/errors.js';
import type { UserRow } from './accounts.repository.js';
import { readUserDefaults } from '../settings/user-defaults.service.js';
import type { UserRepositories } from '../user-repositories.js';

export interface NewAccount {
  username: string;
  /** Already hashed: the slow hash never runs inside a transaction. */
  passwordHash: string;
  displayName?: string;
  role: AccountRole;
  permissions?: DelegablePermission[];
  webPlayback?: boolean;
  driveAPlayMode?: DriveAPlayMode;
}

export const usernameTaken = (username: string) =>
  new AppError(409, 'USERNAME_TAKEN', `the user name '${username}' is already taken`);

/**
 * Creates an account inside the caller's transaction, with a copy of the default node access, library
 * access and quota policies in force now.
 */
export async function createAccount(
  repositories: UserRepositories,
  account: NewAccount,
  now: Date,
): Promise<UserRow> {
  const username = account.username.trim();
  if (await repositories.accounts.findByUsername(username)) throw usernameTaken(username);
  const defaults = await readUserDefaults(repositories.settings);
  let row: UserRow;
  try {
    row = await repositories.accounts.insert({
      id: randomUUID(),
      username,
      displayName: account.displayName?.trim() || username,
      role: account.role,
      passwordHash: account.passwordHash,
      permissions: [...new Set(account.permissions ?? [])],
      webPlayback: account.webPlayback ?? true,
      driveAPlayMode: account.driveAPlayMode ?? 'proxy',
      now,
    });
  } catch (error) {
    if (errorCode(error) === '23505') throw usernameTaken(username);
    throw error;
  }
  await repositories.access.setNodeAccess(row.id, defaults.nodeAccess, now);
  await repositories.access.setLibraryAccess(row.id, defaults.libraryAccess, now);
  await repositories.access.replaceQuotas(row.id, defaults.quotas);
  return row;
}
