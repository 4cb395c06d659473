import type { Migration } from '../../../platform/db/index.js';
import { v001SystemSettings } from './V001__system_settings.js';
import { v002LibrariesItemsScansEvents } from './V002__libraries_items_scans_events.js';
import { v003UserItemData } from './V003__user_item_data.js';
import { v004OutboundWebhooks } from './V004__outbound_webhooks.js';

/**
 * The media database's migrations, in the order they run. A migration's name is what the database records
 * as applied: never rename or reorder one; add the next as a new file at the end.
 */
export const mediaMigrations: readonly Migration[] = [
  v001SystemSettings,
  v002LibrariesItemsScansEvents,
  v003UserItemData,
  v004OutboundWebhooks,
];
