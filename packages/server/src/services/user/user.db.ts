import type { Generated } from 'kysely';

export interface SystemSettingsTable {
  key: string;
  value: unknown;
  updated_at: Generated<Date>;
}

export interface UserDatabase {
  system_settings: SystemSettingsTable;
}
