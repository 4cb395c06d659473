import type { ServiceDatabase } from '../../platform/db/index.js';
import type { ComponentFactory, RuntimeContext } from '../../runtime/component.js';
import { createDatabaseService } from '../shared/database-service.component.js';
import { registerItemsRoutes } from './items/items.routes.js';
import { ItemsRepository } from './items/items.repository.js';
import { ItemsService } from './items/items.service.js';
import { LibrariesRepository } from './libraries/libraries.repository.js';
import { registerLibrariesRoutes } from './libraries/libraries.routes.js';
import { LibrariesService } from './libraries/libraries.service.js';
import { LibraryAccessResolver, type LibraryAccessSource } from './libraries/library-access.js';
import { userServiceLibraryAccess } from './libraries/library-access.client.js';
import type { MediaDatabase } from './media.db.js';
import { mediaMigrations } from './media.migrations.js';
import { MediaEventsRepository } from './events/media-events.repository.js';
import { SystemSettingsRepository } from '../shared/system-settings.repository.js';
import { registerMetadataSettingsRoutes } from './metadata/metadata-settings.routes.js';
import { registerProtocolSettingsRoutes } from './protocol-settings/protocol-settings.routes.js';
import { ProtocolSettingsService } from './protocol-settings/protocol-settings.service.js';
import { MetadataSettingsService } from './metadata/metadata-settings.service.js';
import { PlaybackCatalogRepository } from './playback/playback-catalog.repository.js';
import { PlaybackCatalogService } from './playback/playback-catalog.service.js';
import { registerPlaybackRoutes } from './playback/playback.routes.js';
import { PortalRepository } from './portal/portal.repository.js';
import { registerPortalRoutes } from './portal/portal.routes.js';
import { PortalService } from './portal/portal.service.js';
import { ScanRunner } from './scan/scan-runner.js';
import { ScanService } from './scan/scan.service.js';
import { ScanExecution } from './scan/scanner.js';
import { ScansRepository } from './scan/scans.repository.js';
import { registerSetupFactsRoutes } from './scan/setup-facts.routes.js';
import { HttpStorageGateway, type StorageGateway } from './storage/storage-gateway.js';
import { UserItemDataRepository } from './playback/user-item-data.repository.js';
import { registerWebhookRoutes } from './webhooks/inbound/webhook.routes.js';
import { WebhookService } from './webhooks/inbound/webhook.service.js';
import { registryAuditClient } from '../../platform/audit/audit-client.js';
import { setupOutboundWebhooks, type OutboundWebhookOptions } from './webhooks/outbound/setup.js';

export interface MediaComponentOptions {
  /** The storage nodes' API (default: over HTTP, found through the registry). */
  storage?: (context: RuntimeContext) => StorageGateway;
  /** Scans run at once by this instance (default 2). */
  maxParallelScans?: number;
  /** Hands out the repositories once they exist (tests and benches read the media events through it). */
  expose?: (parts: MediaParts) => void;
  /** Where users' library access comes from (default: the user service, found through the registry). */
  libraryAccess?: LibraryAccessSource;
  /** Outbound webhook tuning (tests: short retry waits, an injected resolver). */
  outboundWebhooks?: OutboundWebhookOptions;
}

export interface MediaParts {
  database: ServiceDatabase<MediaDatabase>;
  events: MediaEventsRepository;
  items: ItemsRepository;
  scans: ScansRepository;
  userData: UserItemDataRepository;
}

/** Media service (18083): libraries, items and metadata, scans, webhooks, protocol server info. */
export function mediaComponentFactory(options: MediaComponentOptions = {}): ComponentFactory {
  return async (context) => {
    let runner: ScanRunner | undefined;
    let outbound: { close(): Promise<void> } | undefined;
    const component = await createDatabaseService<MediaDatabase>(context, {
      component: 'media',
      service: 'svc-media',
      database: 'svc_media',
      migrations: mediaMigrations,
      port: context.settings.ports.media,
      setup: ({ app, database, scheduler }) => {
        const { db } = database;
        const logger = context.logger.child({ component: 'media' });
        const storage =
          options.storage?.(context) ??
          new HttpStorageGateway({ registry: context.registry, serviceToken: context.serviceToken });
        const settingsRepository = new SystemSettingsRepository(db);
        const libraries = new LibrariesRepository(db);
        const items = new ItemsRepository(db);
        const scans = new ScansRepository(db);
        const events = new MediaEventsRepository(db);
        const userData = new UserItemDataRepository(db);
        const metadata = new MetadataSettingsService(settingsRepository, context.clock);
        const audit = registryAuditClient({ ...context, logger });

        const scanRunner = new ScanRunner({
          scans,
          clock: context.clock,
          logger,
          maxParallel: options.maxParallelScans,
          execute: (scan, signal) =>
            new ScanExecution(
              {
                db,
                libraries,
                items,
                scans,
                events,
                storage,
                provider: () => metadata.provider(),
                clock: context.clock,
                logger,
              },
              scan,
              signal,
            ).run(),
        });
        runner = scanRunner;

        const itemsService = new ItemsService(items, libraries, storage);
        const scanService = new ScanService(libraries, scans, scanRunner, context.clock);
        registerLibrariesRoutes(app, {
          libraries: new LibrariesService(libraries, scans, storage, context.clock, scanService),
          items: itemsService,
          scans: scanService,
          audit,
        });
        registerItemsRoutes(app, itemsService);
        registerSetupFactsRoutes(app, scans);
        registerWebhookRoutes(
          app,
          new WebhookService(settingsRepository, libraries, scans, scanRunner, context.clock),
          audit,
        );
        registerMetadataSettingsRoutes(app, metadata, audit);
        registerProtocolSettingsRoutes(
          app,
          new ProtocolSettingsService(settingsRepository, () => new Date(context.clock.now())),
          audit,
        );
        const catalog = new PlaybackCatalogRepository(db);
        const access = new LibraryAccessResolver(
          options.libraryAccess ??
            userServiceLibraryAccess({ registry: context.registry, serviceToken: context.serviceToken }),
        );
        registerPlaybackRoutes(
          app,
          new PlaybackCatalogService(catalog, userData, itemsService, context.clock, access),
        );
        registerPortalRoutes(
          app,
          new PortalService(new PortalRepository(db), catalog, libraries, items, itemsService, access),
        );

        outbound = setupOutboundWebhooks({
          app,
          scheduler,
          db,
          libraries,
          events,
          clock: context.clock,
          logger,
          audit,
          options: options.outboundWebhooks,
        });

        options.expose?.({ database, events, items, scans, userData });

        // Picks up scans queued by other instances and fails the scans of instances that died.
        scheduler.register({
          name: 'media.scan-queue',
          schedule: { everyMs: 5_000 },
          exclusive: false,
          run: () => scanRunner.sweep(),
        });
      },
    });
    const { start, stop } = component;
    return {
      ...component,
      start: async () => {
        await start?.();
        runner?.start();
      },
      stop: async () => {
        await runner?.stop();
        await stop?.();
        await outbound?.close();
      },
    };
  };
}

export const createMediaComponent: ComponentFactory = mediaComponentFactory();
