import { systemSettingsMigration } from '../../shared/system-settings.migration.js';

/** The key-value settings table every service database shares (services/shared/system-settings.migration.ts). */
export const systemSettingsTableMigration = systemSettingsMigration('V001__system_settings');
