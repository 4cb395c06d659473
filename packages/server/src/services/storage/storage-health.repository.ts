import { sql, type Kysely } from 'kysely';
import type { StorageDatabase } from './storage.db.js';

/** The database check of the node's health document. */
export class StorageHealthRepository {
  constructor(private readonly db: Kysely<StorageDatabase>) {}

  /** Whether the database answers a trivial query. */
  async reachable(): Promise<boolean> {
    try {
      await sql`SELECT 1`.execute(this.db);
      return true;
    } catch {
      return false;
    }
  }
}
