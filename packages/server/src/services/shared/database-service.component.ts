import { sql } from 'kysely';
import type { ComponentName, RegisteredService } from '@svc/contracts';
import type { Migration, ServiceDatabaseName } from '../../platform/db/index.js';
import { createServer, type AppServer } from '../../platform/http/create-server.js';
import type { Component, RuntimeContext } from '../../runtime/component.js';
import { bindHostFor } from '../../runtime/bind.js';
import { createScheduler, openOwnedDatabase } from '../../runtime/owned-database.js';
import type { ServiceDatabase } from '../../platform/db/index.js';
import type { TaskScheduler } from '../../platform/tasks/index.js';

export interface DatabaseServiceDefinition<DB> {
  component: ComponentName;
  service: RegisteredService;
  database: ServiceDatabaseName;
  migrations: readonly Migration[];
  port: number;
  nodeId?: string;
  /** Adds the service's routes and tasks. */
  setup?: (parts: {
    app: AppServer;
    database: ServiceDatabase<DB>;
    scheduler: TaskScheduler;
  }) => void | Promise<void>;
  /** Extra paths answering the health document. */
  healthPaths?: string[];
}

/** The common shape of a service that owns one database: listener, health with a database check, tasks. */
export async function createDatabaseService<DB>(
  context: RuntimeContext,
  definition: DatabaseServiceDefinition<DB>,
): Promise<Component> {
  const database = await openOwnedDatabase<DB>(context, definition.database, definition.migrations);
  const app = createServer({
    serviceToken: context.serviceToken,
    component: definition.component,
    logger: context.logger.child({ component: definition.component }),
    healthPaths: definition.healthPaths,
    healthChecks: async () => {
      try {
        await sql`SELECT 1`.execute(database.db);
        return { database: 'UP' };
      } catch {
        return { database: 'DOWN' };
      }
    },
  });
  const scheduler = createScheduler(context, definition.component, database);
  await definition.setup?.({ app, database, scheduler });
  return {
    name: definition.component,
    app,
    host: bindHostFor(context, definition.component),
    port: definition.port,
    registration: { service: definition.service, nodeId: definition.nodeId ?? null },
    start: () => scheduler.start(),
    stop: async () => {
      await scheduler.stop();
      await database.close();
    },
  };
}
