import type { Migration } from '../../platform/db/index.js';
import { systemSettingsMigration } from '../shared/system-settings.migration.js';

export const storageMigrations: readonly Migration[] = [systemSettingsMigration('V001__system_settings')];
