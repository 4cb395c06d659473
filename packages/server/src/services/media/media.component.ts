import type { ComponentFactory } from '../../runtime/component.js';
import { createDatabaseService } from '../shared/database-service.component.js';
import type { MediaDatabase } from './media.db.js';
import { mediaMigrations } from './media.migrations.js';

/** Media service (18083): libraries, items and metadata, scans, webhooks, protocol server info. */
export const createMediaComponent: ComponentFactory = (context) =>
  createDatabaseService<MediaDatabase>(context, {
    component: 'media',
    service: 'svc-media',
    database: 'svc_media',
    migrations: mediaMigrations,
    port: context.settings.ports.media,
  });
