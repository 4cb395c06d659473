import { sql, type Kysely } from 'kysely';
import { advisoryLockKey } from '../../../platform/db/index.js';
import type { UserDatabase } from '../user.db.js';

const BRANDING_LOCK = advisoryLockKey('svc_user:branding');

/** Serialises changes of the branding row (name and logo are saved by separate requests). */
export class BrandingLockRepository {
  constructor(private readonly db: Kysely<UserDatabase>) {}

  /** Held until the surrounding transaction ends. */
  async lock(): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(${BRANDING_LOCK}::bigint)`.execute(this.db);
  }
}
