import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/**
 * The playback report (docs/report.md) reads windows of the log: a covering index on occurred_at lets the
 * cards, timeline, concurrency, heatmap and rankings scan a window without touching the wide rows. The
 * fixed-width columns come first: reading them then needs no offset computation past the text columns.
 */
export const activityLogReportIndexMigration: Migration = {
  name: 'V006__activity_log_report_index',
  async up(db) {
    await sql`
      CREATE INDEX activity_log_occurred_cover ON activity_log (occurred_at)
        INCLUDE (duration_ms, bytes_delta, user_id, event_type, media_type, session_id, media_id);
    `.execute(db);
  },
};
