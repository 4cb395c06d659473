import { systemSettingsMigration } from '../../shared/system-settings.migration.js';

/** V003: the key/value settings of the config service (play-agent policy, MCP switch). */
export const systemSettings = systemSettingsMigration('V003__system_settings');
