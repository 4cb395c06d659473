import type { Migration } from '../../../platform/db/index.js';
import { systemSettingsMigration } from '../../shared/system-settings.migration.js';

/** The key/value table of the settings the media service owns (metadata provider, webhook token, protocol). */
export const v001SystemSettings: Migration = systemSettingsMigration('V001__system_settings');
