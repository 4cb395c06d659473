import type { Migration } from '../../../platform/db/index.js';
import { systemSettingsTableMigration } from './V001__system_settings.js';
import { accountsTokensAuditMigration } from './V002__accounts_tokens_audit.js';
import { accessAndQuotasMigration } from './V003__access_and_quotas.js';
import { playbackTokensMigration } from './V004__playback_tokens.js';
import { activityLogMigration } from './V005__activity_log.js';
import { activityLogReportIndexMigration } from './V006__activity_log_report_index.js';
import { activitySessionRollupMigration } from './V007__activity_session_rollup.js';
import { timeRollupMigration } from './V008__activity_time_rollups.js';
import { playSpanMigration } from './V009__activity_play_span.js';
import { platformColumnMigration } from './V010__activity_log_platform.js';
import { libraryAccessMigration } from './V011__user_library_access.js';

/**
 * The user database's migrations, in order: one file each, named as stored in svc_schema_migrations (a stored
 * name is never renamed, or existing databases would apply it again). A new migration is a new file here.
 */
export const userMigrations: readonly Migration[] = [
  systemSettingsTableMigration,
  accountsTokensAuditMigration,
  accessAndQuotasMigration,
  playbackTokensMigration,
  activityLogMigration,
  activityLogReportIndexMigration,
  activitySessionRollupMigration,
  timeRollupMigration,
  playSpanMigration,
  platformColumnMigration,
  libraryAccessMigration,
];
