import type { Kysely } from 'kysely';
import { AccessPolicyRepository } from './playback-access/access-policy.repository.js';
import { ActivityLogRepository } from './activity/activity-log.repository.js';
import { AccountsRepository } from './accounts/accounts.repository.js';
import { AuditRepository } from './audit/audit.repository.js';
import { BrandingLockRepository } from './branding/branding.repository.js';
import { SystemSettingsRepository } from '../shared/system-settings.repository.js';
import { TokensRepository } from './tokens/tokens.repository.js';
import { TrafficUsageRepository } from './quota/traffic-usage.repository.js';
import type { UserDatabase } from './user.db.js';

/** The public surface of a class, so tests can hand a service a fake. */
export type Port<T> = { [K in keyof T]: T[K] };

/** The repositories of the user service, all bound to one connection or transaction. */
export interface UserRepositories {
  accounts: Port<AccountsRepository>;
  tokens: Port<TokensRepository>;
  audit: Port<AuditRepository>;
  access: Port<AccessPolicyRepository>;
  usage: Port<TrafficUsageRepository>;
  settings: Port<SystemSettingsRepository>;
  activity: Port<ActivityLogRepository>;
}

/** Runs work in one database transaction with repositories bound to it (commit on success). */
export type Transactor = <T>(work: (repositories: UserRepositories) => Promise<T>) => Promise<T>;

export function userRepositories(db: Kysely<UserDatabase>): UserRepositories {
  return {
    accounts: new AccountsRepository(db),
    tokens: new TokensRepository(db),
    audit: new AuditRepository(db),
    access: new AccessPolicyRepository(db),
    usage: new TrafficUsageRepository(db),
    settings: new SystemSettingsRepository(db),
    activity: new ActivityLogRepository(db),
  };
}

export function transactor(db: Kysely<UserDatabase>): Transactor {
  return (work) => db.transaction().execute((trx) => work(userRepositories(trx)));
}

/** A transaction that also takes the branding row's lock (logo and system name changes). */
export type BrandingTransactor = <T>(
  work: (repositories: UserRepositories & { branding: BrandingLockRepository }) => Promise<T>,
) => Promise<T>;

export function brandingTransactor(db: Kysely<UserDatabase>): BrandingTransactor {
  return (work) =>
    db
      .transaction()
      .execute((trx) => work({ ...userRepositories(trx), branding: new BrandingLockRepository(trx) }));
}
