import { registryAuditClient } from '../../platform/audit/audit-client.js';
import type { ServiceDatabase } from '../../platform/db/index.js';
import type { ComponentFactory, RuntimeContext } from '../../runtime/component.js';
import { createDatabaseService } from '../shared/database-service.component.js';
import { SystemSettingsRepository } from '../shared/system-settings.repository.js';
import { MediaEventsRepository } from './events/media-events.repository.js';
import { ItemsRepository } from './items/items.repository.js';
import { registerItemsRoutes } from './items/items.routes.js';
import { ItemsService } from './items/items.service.js';
import { LibrariesRepository } from './libraries/libraries.repository.js';
import { registerLibrariesRoutes } from './libraries/libraries.routes.js';
import { LibrariesService } from './libraries/libraries.service.js';
import { LibraryAccessResolver, type LibraryAccessSource } from './libraries/library-access.js';
import { userServiceLibraryAccess } from './libraries/library-access.client.js';
import type { MediaDatabase } from './media.db.js';
import { registerMetadataSettingsRoutes } from './metadata/metadata-settings.routes.js';
import { MetadataSettingsService } from './metadata/metadata-settings.service.js';
import { mediaMigrations } from './migrations/index.js';
import { PlaybackCatalogRepository } from './playback/playback-catalog.repository.js';
import { PlaybackCatalogService } from './playback/playback-catalog.service.js';
import { registerPlaybackRoutes } from './playback/playback.routes.js';
import { UserItemDataRepository } from './playback/user-item-data.repository.js';
import { PortalRepository } from './portal/portal.repository.js';
import { registerPortalRoutes } from './portal/portal.routes.js';
import { PortalService } from './portal/portal.service.js';
import { registerProtocolSettingsRoutes } from './protocol-settings/protocol-settings.routes.js';
import { ProtocolSettingsService } from './protocol-settings/protocol-settings.service.js';
import { ScanBatchRepository } from './scan/scan-batch.repository.js';
import { ScanExecution } from './scan/scan-execution.js';
import { ScanRunner } from './scan/scan-runner.js';
import { registerScanRoutes } from './scan/scan.routes.js';
import { ScanService } from './scan/scan.service.js';
import { ScansRepository } from './scan/scans.repository.js';
import { HttpStorageGateway, type StorageGateway } from './storage/storage-gateway.js';
import { registerWebhookRoutes } from './webhooks/inbound/webhook.routes.js';
import { WebhookService } from './webhooks/inbound/webhook.service.js';
import { DeliveryWorker } from './webhooks/outbound/delivery-worker.js';
import {
  registerOutboundWebhookTasks,
  type OutboundWebhookOptions,
} from './webhooks/outbound/outbound-webhook-tasks.js';
import { OutboundWebhooksRepository } from './webhooks/outbound/outbound-webhooks.repository.js';
import { registerOutboundWebhookRoutes } from './webhooks/outbound/outbound-webhooks.routes.js';
import { OutboundWebhooksService } from './webhooks/outbound/outbound-webhooks.service.js';
import { SafeHttpClient } from './webhooks/outbound/safe-http-client.js';

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

/**
 * Media service (18083): libraries, items and metadata, scans, webhooks, protocol server info. The one
 * place that builds its parts: repositories (the only code with SQL), then the services over them, then
 * the routes (each given the one service it serves) and the scheduled tasks.
 */
export function mediaComponentFactory(options: MediaComponentOptions = {}): ComponentFactory {
  return async (context) => {
    let runner: ScanRunner | undefined;
    let httpClient: SafeHttpClient | undefined;
    const component = await createDatabaseService<MediaDatabase>(context, {
      component: 'media',
      service: 'svc-media',
      database: 'svc_media',
      migrations: mediaMigrations,
      port: context.settings.ports.media,
      setup: ({ app, database, scheduler }) => {
        const { db } = database;
        const { clock, registry, serviceToken } = context;
        const logger = context.logger.child({ component: 'media' });
        const storage = options.storage?.(context) ?? new HttpStorageGateway({ registry, serviceToken });
        const audit = registryAuditClient({ ...context, logger });
        const access = new LibraryAccessResolver(
          options.libraryAccess ?? userServiceLibraryAccess({ registry, serviceToken }),
        );

        // Repositories.
        const settingsRepository = new SystemSettingsRepository(db);
        const libraryRepository = new LibrariesRepository(db);
        const itemRepository = new ItemsRepository(db);
        const scanRepository = new ScansRepository(db);
        const events = new MediaEventsRepository(db);
        const batches = new ScanBatchRepository(db, itemRepository, events);
        const userData = new UserItemDataRepository(db);
        const catalogRepository = new PlaybackCatalogRepository(db);
        const portalRepository = new PortalRepository(db);
        const webhookRepository = new OutboundWebhooksRepository(db);

        // Services, and the workers behind them.
        const metadata = new MetadataSettingsService(settingsRepository, clock);
        const scanRunner = new ScanRunner({
          scans: scanRepository,
          clock,
          logger,
          maxParallel: options.maxParallelScans,
          execute: (scan, signal) =>
            new ScanExecution(
              {
                libraries: libraryRepository,
                items: itemRepository,
                scans: scanRepository,
                events,
                batches,
                storage,
                provider: () => metadata.provider(),
                clock,
                logger,
              },
              scan,
              signal,
            ).run(),
        });
        runner = scanRunner;
        const scans = new ScanService(libraryRepository, scanRepository, scanRunner, clock);
        const libraries = new LibrariesService(libraryRepository, scanRepository, storage, clock, scans);
        const items = new ItemsService(itemRepository, libraryRepository, storage);
        const inbound = new WebhookService(
          settingsRepository,
          libraryRepository,
          scanRepository,
          scanRunner,
          clock,
        );
        const protocol = new ProtocolSettingsService(settingsRepository, () => new Date(clock.now()));
        const catalog = new PlaybackCatalogService(catalogRepository, userData, items, clock, access);
        const portal = new PortalService(
          portalRepository,
          catalogRepository,
          libraryRepository,
          itemRepository,
          items,
          access,
        );
        const outboundOptions = options.outboundWebhooks ?? {};
        httpClient = new SafeHttpClient(outboundOptions.http);
        const deliveries = new DeliveryWorker(
          {
            repository: webhookRepository,
            events,
            client: httpClient,
            clock,
            logger: logger.child({ part: 'outbound-webhooks' }),
          },
          outboundOptions,
        );
        const outbound = new OutboundWebhooksService(webhookRepository, libraryRepository, deliveries, clock);

        // Routes.
        registerLibrariesRoutes(app, libraries, audit);
        registerItemsRoutes(app, items);
        registerScanRoutes(app, scans, audit);
        registerWebhookRoutes(app, inbound, audit);
        registerMetadataSettingsRoutes(app, metadata, audit);
        registerProtocolSettingsRoutes(app, protocol, audit);
        registerPlaybackRoutes(app, catalog);
        registerPortalRoutes(app, portal);
        registerOutboundWebhookRoutes(app, outbound, audit);

        // Scheduled tasks. The scan queue: picks up scans queued by other instances and fails the scans of
        // instances that died.
        scheduler.register({
          name: 'media.scan-queue',
          schedule: { everyMs: 5_000 },
          exclusive: false,
          run: () => scanRunner.sweep(),
        });
        registerOutboundWebhookTasks(scheduler, deliveries, outboundOptions);

        options.expose?.({
          database,
          events,
          items: itemRepository,
          scans: scanRepository,
          userData,
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
        // Closed after the scheduler stopped (the component's stop), so no attempt meets a closed client.
        await httpClient?.close();
      },
    };
  };
}

export const createMediaComponent: ComponentFactory = mediaComponentFactory();
