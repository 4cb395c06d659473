import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/** V007__node_removal_sent: "send uninstall command" can now be delivered to an ONLINE node (`sent`). */
export const nodeRemovalSentMigration: Migration = {
  name: 'V007__node_removal_sent',
  async up(db) {
    await sql`ALTER TABLE node_removals DROP CONSTRAINT IF EXISTS node_removals_uninstall_result_check`.execute(
      db,
    );
    await sql`
      ALTER TABLE node_removals ADD CONSTRAINT node_removals_uninstall_result_check
        CHECK (uninstall_result IN ('not-requested', 'not-applicable', 'unreachable', 'sent', 'not-sent'))`.execute(
      db,
    );
  },
};
