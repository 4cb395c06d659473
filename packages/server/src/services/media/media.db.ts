import type { SystemSettingsTable } from '../user/user.db.js';

export interface MediaDatabase {
  system_settings: SystemSettingsTable;
}
