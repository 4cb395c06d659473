import type { Migration } from '../../../platform/db/index.js';
import { systemSettingsMigration } from '../../shared/system-settings.migration.js';

/** The install-wide settings table every service database carries (shared/system-settings.migration.ts). */
export const V001__system_settings: Migration = systemSettingsMigration('V001__system_settings');
