import { SHANGHAI_TIME_ZONE } from '@svc/contracts';
import type { Cache, Clock } from '../../platform/cache/index.js';
import type { ServiceDatabase } from '../../platform/db/index.js';
import type { AppServer } from '../../platform/http/create-server.js';
import type { Logger } from '../../platform/logger.js';
import type { TaskScheduler } from '../../platform/tasks/index.js';
import type { ComponentFactory } from '../../runtime/component.js';
import { createDatabaseService } from '../shared/database-service.component.js';
import { SetupService } from './accounts/setup.service.js';
import { registerUsersRoutes } from './accounts/users.routes.js';
import { UsersService } from './accounts/users.service.js';
import { ActiveSessionsRepository } from './activity/active-sessions.repository.js';
import { ActivityLogService } from './activity/activity-log.service.js';
import { registerDashboardRoutes } from './activity/dashboard.routes.js';
import { DashboardService } from './activity/dashboard.service.js';
import { registerAuditRoutes } from './audit/audit.routes.js';
import { AuditService } from './audit/audit.service.js';
import { AuditedLoginLock } from './auth/audited-login-lock.js';
import { registerAuthRoutes, registerIntrospectionRoute } from './auth/auth.routes.js';
import { AuthService } from './auth/auth.service.js';
import { LoginLock } from './auth/login-lock.js';
import { PasswordHasher } from './auth/password-hasher.js';
import { PlaybackAuthService } from './auth/playback-auth.service.js';
import { registerBrandingRoutes } from './branding/branding.routes.js';
import { BrandingSettingsService } from './branding/branding-settings.service.js';
import { BrandingService } from './branding/branding.service.js';
import { HttpUploadedImages, type UploadedImages } from './branding/logo-uploads.client.js';
import { WebPlaybackService } from './branding/web-playback.service.js';
import { registerActivityLogRoutes } from './activity/activity-log.routes.js';
import { registerPlaybackAuthRoutes } from './auth/playback-auth.routes.js';
import { userMigrations } from './migrations/index.js';
import { registerAccessRoutes } from './playback-access/access.routes.js';
import { AccessPolicyService } from './playback-access/access-policy.service.js';
import { HttpNodeDirectory, type NodeDirectory } from './playback-access/node-directory.js';
import { reportRepositories } from './reports/reports.repository.js';
import { registerReportRoutes } from './reports/reports.routes.js';
import { ReportsService } from './reports/reports.service.js';
import { ActivityRetentionRepository } from './reports/retention.repository.js';
import { RetentionService } from './reports/retention.service.js';
import { registerDefaultPolicyRoutes } from './settings/default-policies.routes.js';
import { DefaultPoliciesService } from './settings/default-policies.service.js';
import { UserDefaultsService } from './settings/user-defaults.service.js';
import { RevocationNotifier } from './tokens/revocations.js';
import type { UserDatabase } from './user.db.js';
import {
  brandingTransactor,
  transactor,
  userRepositories,
  type UserRepositories,
} from './user-repositories.js';

/** Tokens that expired or were revoked this long ago are deleted by the auth-tokens.prune task. */
export const TOKEN_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** Name of the daily task that deletes activity events older than the retention. */
export const ACTIVITY_CLEANUP_TASK = 'activity-log.cleanup';

export interface UserServices {
  repositories: UserRepositories;
  auth: AuthService;
  setup: SetupService;
  users: UsersService;
  access: AccessPolicyService;
  defaults: UserDefaultsService;
  policies: DefaultPoliciesService;
  audit: AuditService;
  branding: BrandingService;
  brandingSettings: BrandingSettingsService;
  playback: PlaybackAuthService;
  activity: ActivityLogService;
  webPlayback: WebPlaybackService;
  dashboard: DashboardService;
  reports: ReportsService;
  retention: RetentionService;
}

/**
 * The user service's composition root: repositories over one database, then the services over them. The
 * config service is reached through two clients (node directory, uploaded images) that tests replace.
 */
export function createUserServices(parts: {
  database: Pick<ServiceDatabase<UserDatabase>, 'db' | 'backend'>;
  cache: Cache;
  clock: Clock;
  logger: Logger;
  directory: NodeDirectory;
  uploads: UploadedImages;
  hasher?: PasswordHasher;
}): UserServices {
  const { cache, clock, directory, logger } = parts;
  const { db, backend } = parts.database;
  const repositories = userRepositories(db);
  const transact = transactor(db);
  const hasher = parts.hasher ?? new PasswordHasher();
  const revocations = new RevocationNotifier(cache, logger);
  const { accounts, tokens, access, usage, audit, settings, activity } = repositories;
  // One lock for every sign-in: console, portal and players count failures of a (client IP, name) pair together.
  const lock = new AuditedLoginLock(new LoginLock(cache, clock), { audit, clock, logger });
  const branding = new BrandingService(settings);
  const defaults = new UserDefaultsService(settings, transact, directory, clock);
  return {
    repositories,
    auth: new AuthService({ accounts, tokens, transact, hasher, lock, revocations, clock }),
    setup: new SetupService(accounts, transact, hasher, clock),
    users: new UsersService({ accounts, access, transact, hasher, revocations, clock }),
    access: new AccessPolicyService({ accounts, access, usage, transact, directory, clock, settings }),
    defaults,
    policies: new DefaultPoliciesService({ defaults, accounts }),
    audit: new AuditService(audit, clock),
    branding,
    brandingSettings: new BrandingSettingsService({
      branding,
      accounts,
      settings,
      transact: brandingTransactor(db),
      uploads: parts.uploads,
      clock,
    }),
    playback: new PlaybackAuthService({ accounts, tokens, transact, hasher, lock, revocations, clock }),
    activity: new ActivityLogService({ transact, activity, clock, logger }),
    webPlayback: new WebPlaybackService({ accounts, settings, transact, clock }),
    dashboard: new DashboardService(new ActiveSessionsRepository(db), clock, accounts),
    reports: new ReportsService(reportRepositories(db, backend), clock),
    retention: new RetentionService({
      accounts,
      settings,
      retention: new ActivityRetentionRepository(db),
      transact,
      clock,
      logger,
    }),
  };
}

/** Every route of the user service; each capability's routes get only the services they call. */
export function registerUserRoutes(app: AppServer, services: UserServices): void {
  registerAuthRoutes(app, services);
  registerIntrospectionRoute(app, services.auth);
  registerPlaybackAuthRoutes(app, services.playback);
  registerUsersRoutes(app, services.users);
  registerAccessRoutes(app, services.access);
  registerAuditRoutes(app, services.audit);
  registerDashboardRoutes(app, services.dashboard);
  registerBrandingRoutes(app, {
    branding: services.branding,
    settings: services.brandingSettings,
    webPlayback: services.webPlayback,
  });
  registerDefaultPolicyRoutes(app, services.policies);
  registerReportRoutes(app, services);
  registerActivityLogRoutes(app, services.activity);
}

/** The user service's periodic tasks. */
export function registerUserTasks(scheduler: TaskScheduler, services: UserServices, clock: Clock): void {
  scheduler.register({
    name: 'auth-tokens.prune',
    schedule: { everyMs: 60 * 60 * 1000 },
    run: async () => {
      await services.repositories.tokens.pruneBefore(new Date(clock.now() - TOKEN_RETENTION_MS));
    },
  });
  scheduler.register({
    name: ACTIVITY_CLEANUP_TASK,
    // Daily at night, Shanghai time, when playback is quiet.
    schedule: { cron: '0 30 3 * * *', timezone: SHANGHAI_TIME_ZONE },
    run: async (signal) => {
      await services.retention.cleanup(signal);
    },
  });
}

/** User service (18082): accounts, tokens, permissions, quotas, activity log, branding, playback report. */
export const createUserComponent: ComponentFactory = (context) =>
  createDatabaseService<UserDatabase>(context, {
    component: 'user',
    service: 'svc-user',
    database: 'svc_user',
    migrations: userMigrations,
    port: context.settings.ports.user,
    setup: ({ app, database, scheduler }) => {
      const services = createUserServices({
        database,
        cache: context.cache,
        clock: context.clock,
        logger: context.logger.child({ component: 'user' }),
        directory: new HttpNodeDirectory(context.settings.configBaseUrl, context.serviceToken),
        uploads: new HttpUploadedImages(context.settings.configBaseUrl, context.serviceToken),
      });
      registerUserRoutes(app, services);
      registerUserTasks(scheduler, services, context.clock);
    },
  });
