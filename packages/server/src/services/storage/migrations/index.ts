import type { Migration } from '../../../platform/db/index.js';
import { V001__system_settings } from './V001__system_settings.js';
import { V002__mounts_transfers_uploads } from './V002__mounts_transfers_uploads.js';
import { V003__drive_accounts } from './V003__drive_accounts.js';

/**
 * The migrations of the storage database (yiyi_storage), in the order they run. One file per migration;
 * a name, once released, is stored in the database and never changes.
 */
export const storageMigrations: readonly Migration[] = [
  V001__system_settings,
  V002__mounts_transfers_uploads,
  V003__drive_accounts,
];
