import type { SystemSettingsTable } from '../user/user.db.js';

export interface StorageDatabase {
  system_settings: SystemSettingsTable;
}
