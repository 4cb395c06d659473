import { openServiceDatabase, type ServiceDatabase, type ServiceDatabaseName } from '../platform/db/index.js';
import type { Logger } from '../platform/logger.js';
import type { Settings } from '../platform/settings.js';

/** Opens a service database where the settings say it lives (bundled or external). */
export function openConfiguredDatabase<DB>(
  settings: Settings,
  name: ServiceDatabaseName,
  logger: Logger,
): Promise<ServiceDatabase<DB>> {
  return openServiceDatabase<DB>({
    name,
    mode: settings.dbMode,
    dataDir: settings.dataDir,
    databaseUrl: settings.databaseUrl,
    nameSuffix: settings.dbNameSuffix,
    logger,
  });
}
