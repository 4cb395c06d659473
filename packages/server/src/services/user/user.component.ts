import type { ComponentFactory } from '../../runtime/component.js';
import { createDatabaseService } from '../shared/database-service.component.js';
import type { UserDatabase } from './user.db.js';
import { userMigrations } from './user.migrations.js';

/** User service (18082): accounts, tokens, permissions, quotas, activity log, branding. */
export const createUserComponent: ComponentFactory = (context) =>
  createDatabaseService<UserDatabase>(context, {
    component: 'user',
    service: 'svc-user',
    database: 'svc_user',
    migrations: userMigrations,
    port: context.settings.ports.user,
  });
