import type { Kysely } from 'kysely';
import type { Cache, Clock } from '../../platform/cache/index.js';
import type { Logger } from '../../platform/logger.js';
import { AccessPolicyService } from './access-policy.service.js';
import { ActiveSessionsRepository } from './active-sessions.repository.js';
import { ActivityLogService } from './activity-log.service.js';
import { AuditService } from './audit.service.js';
import { AuditedLoginLock } from './audited-login-lock.js';
import { AuthService } from './auth.service.js';
import { BrandingService } from './branding.service.js';
import { DashboardService } from './dashboard.service.js';
import { LoginLock } from './login-lock.js';
import type { NodeDirectory } from './node-directory.js';
import { PasswordHasher } from './password-hasher.js';
import { PlaybackAuthService } from './playback-auth.service.js';
import { RevocationNotifier } from './revocations.js';
import { SetupService } from './setup.service.js';
import { UserDefaultsService } from './user-defaults.service.js';
import type { UserDatabase } from './user.db.js';
import { transactor, userRepositories, type UserRepositories } from './user-repositories.js';
import { UsersService } from './users.service.js';
import { WebPlaybackService } from './web-playback.service.js';

export interface UserServices {
  repositories: UserRepositories;
  auth: AuthService;
  setup: SetupService;
  users: UsersService;
  access: AccessPolicyService;
  defaults: UserDefaultsService;
  audit: AuditService;
  branding: BrandingService;
  playback: PlaybackAuthService;
  activity: ActivityLogService;
  webPlayback: WebPlaybackService;
  dashboard: DashboardService;
}

/** Wires the user service's services over one database. */
export function createUserServices(parts: {
  db: Kysely<UserDatabase>;
  cache: Cache;
  clock: Clock;
  logger: Logger;
  directory: NodeDirectory;
  hasher?: PasswordHasher;
}): UserServices {
  const { db, cache, clock, directory } = parts;
  const repositories = userRepositories(db);
  const transact = transactor(db);
  const hasher = parts.hasher ?? new PasswordHasher();
  const revocations = new RevocationNotifier(cache, parts.logger);
  // One lock for every sign-in: console, portal and players count failures of a (client IP, name) pair together.
  const { accounts, tokens, access, usage, audit, settings, activity } = repositories;
  const lock = new AuditedLoginLock(new LoginLock(cache, clock), { audit, clock, logger: parts.logger });
  return {
    repositories,
    auth: new AuthService({ accounts, tokens, transact, hasher, lock, revocations, clock }),
    setup: new SetupService(accounts, transact, hasher, clock),
    users: new UsersService({ accounts, access, transact, hasher, revocations, clock }),
    access: new AccessPolicyService({ accounts, access, usage, transact, directory, clock, settings }),
    defaults: new UserDefaultsService(settings, transact, directory, clock),
    audit: new AuditService(audit, clock),
    branding: new BrandingService(settings),
    playback: new PlaybackAuthService({ accounts, tokens, transact, hasher, lock, revocations, clock }),
    activity: new ActivityLogService({ transact, activity, clock, logger: parts.logger }),
    webPlayback: new WebPlaybackService({ accounts, settings, transact, clock }),
    dashboard: new DashboardService(new ActiveSessionsRepository(db), clock, accounts),
  };
}
