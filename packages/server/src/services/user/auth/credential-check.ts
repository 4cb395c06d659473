import { AppError } from '../../../platform/http/errors.js';
import type { AccountsRepository, UserRow } from '../accounts/accounts.repository.js';
import { LOGIN_LOCK, type LoginLock } from './login-lock.js';
import type { PasswordHasher } from './password-hasher.js';
import type { Port } from '../user-repositories.js';

/** 429 LOGIN_LOCKED; the route turns `retryAfterSeconds` into the Retry-After header. */
export class LoginLockedError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'LOGIN_LOCKED', `too many failed sign-ins: try again in ${retryAfterSeconds} s`, {
      retryAfterSeconds,
    });
  }
}

export const invalidCredentials = () =>
  new AppError(401, 'INVALID_CREDENTIALS', 'wrong user name or password');

export interface CredentialCheckDeps {
  accounts: Pick<Port<AccountsRepository>, 'findByUsername'>;
  hasher: Pick<PasswordHasher, 'verify' | 'verifyDummy'>;
  lock: Pick<LoginLock, 'lockedForMs' | 'recordFailure' | 'recordSuccess'>;
}

/**
 * The check every sign-in (console, portal, players) makes: a locked (IP, user name) pair is refused
 * before the password is looked at; unknown users, wrong passwords and disabled accounts all answer 401
 * INVALID_CREDENTIALS after one scrypt computation, and count as a failure of the pair.
 */
/** Refuses a locked (IP, user name) pair with 429 LOGIN_LOCKED. */
export async function refuseIfLocked(
  lock: Pick<LoginLock, 'lockedForMs'>,
  clientIp: string,
  username: string,
): Promise<void> {
  const lockedMs = await lock.lockedForMs(clientIp, username);
  if (lockedMs > 0) {
    throw new LoginLockedError(Math.min(Math.ceil(lockedMs / 1000), LOGIN_LOCK.lockMs / 1000));
  }
}

export async function checkCredentials(
  deps: CredentialCheckDeps,
  input: { username: string; password: string; clientIp: string },
): Promise<UserRow> {
  const { accounts, hasher, lock } = deps;
  const username = input.username.trim();
  await refuseIfLocked(lock, input.clientIp, username);
  const user = await accounts.findByUsername(username);
  const passwordOk = user
    ? await hasher.verify(input.password, user.password_hash)
    : await hasher.verifyDummy(input.password);
  if (!user || !passwordOk || user.disabled) {
    await lock.recordFailure(input.clientIp, username);
    throw invalidCredentials();
  }
  await lock.recordSuccess(input.clientIp, username);
  return user;
}
