import type { ComponentFactory } from '../../runtime/component.js';
import { createDatabaseService } from '../shared/database-service.component.js';
import { registerAuditRoutes } from './audit.routes.js';
import { registerAuthRoutes } from './auth.routes.js';
import { registerConsoleRoutes } from './console.routes.js';
import { registerInternalRoutes } from './internal.routes.js';
import { registerMeRoutes } from './me.routes.js';
import { HttpNodeDirectory } from './node-directory.js';
import { HttpUploadedImages } from './logo-uploads.client.js';
import { setupReports } from './reports/reports.setup.js';
import type { UserDatabase } from './user.db.js';
import { userMigrations } from './user.migrations.js';
import { createUserServices } from './user-services.js';
import { registerSettingsRoutes } from './settings.routes.js';
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
      registerMeRoutes(app, services);
      registerConsoleRoutes(app, services);
      registerUsersRoutes(app, services);
      registerAuditRoutes(app, services.audit);
      registerInternalRoutes(app, services);
      registerSettingsRoutes(app, {
        services,
        db: database.db,
        uploads: new HttpUploadedImages(context.settings.configBaseUrl, context.serviceToken),
        clock: context.clock,
      });
      setupReports({
        app,
        database,
        scheduler,
        clock: context.clock,
        logger: context.logger.child({ component: 'user' }),
      });
      scheduler.register({
        name: 'auth-tokens.prune',
        schedule: { everyMs: 60 * 60 * 1000 },
        run: async () => {
          await services.repositories.tokens.pruneBefore(new Date(context.clock.now() - TOKEN_RETENTION_MS));
        },
      });
    },
  });
