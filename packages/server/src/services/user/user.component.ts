import type { ComponentFactory } from '../../runtime/component.js';
import { createDatabaseService } from '../shared/database-service.component.js';
import { registerAuditRoutes } from './audit.routes.js';
import { registerAuthRoutes } from './auth.routes.js';
import { registerInternalRoutes } from './internal.routes.js';
import { HttpNodeDirectory } from './node-directory.js';
import type { UserDatabase } from './user.db.js';
import { userMigrations } from './user.migrations.js';
import { createUserServices } from './user-services.js';
import { registerUsersRoutes } from './users.routes.js';

/** Tokens that expired or were revoked this long ago are deleted by the auth-tokens.prune task. */
export const TOKEN_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** User service (18082): accounts, tokens, permissions, quotas, activity log, branding. */
export const createUserComponent: ComponentFactory = (context) =>
  createDatabaseService<UserDatabase>(context, {
    component: 'user',
    service: 'svc-user',
    database: 'svc_user',
    migrations: userMigrations,
    port: context.settings.ports.user,
    setup: ({ app, database, scheduler }) => {
      const services = createUserServices({
        db: database.db,
        cache: context.cache,
        clock: context.clock,
        logger: context.logger.child({ component: 'user' }),
        directory: new HttpNodeDirectory(context.settings.configBaseUrl, context.serviceToken),
      });
      registerAuthRoutes(app, services);
      registerUsersRoutes(app, services);
      registerAuditRoutes(app, services.audit);
      registerInternalRoutes(app, services);
      scheduler.register({
        name: 'auth-tokens.prune',
        schedule: { everyMs: 60 * 60 * 1000 },
        run: async () => {
          await services.repositories.tokens.pruneBefore(new Date(context.clock.now() - TOKEN_RETENTION_MS));
        },
      });
    },
  });
