import { sql, type Kysely } from 'kysely';
import type { ClusterLicenceFacts } from '@svc/contracts';
import type { ConfigDatabase } from '../config.db.js';

export interface LeaseRow {
  holder: string;
  holder_url: string;
  term: string | number;
  acquired_at: Date;
  renewed_at: Date;
  expires_at: Date;
  licence: ClusterLicenceFacts | null;
}

export interface MemberRow {
  instance_id: string;
  url: string;
  last_seen_at: Date;
}

/**
 * The licence lease of the control instances, in svc_config. Every time is the database's clock (`now()`), so the
 * instances' own clocks never decide who holds the lease.
 */
export class ClusterLeaseRepository {
  constructor(private readonly db: Kysely<ConfigDatabase>) {}

  /**
   * Takes the lease when nobody holds it or it expired, renews it when `instance` holds it; one statement, so two
   * instances racing for an expired lease end with one holder. Answers the row when `instance` holds it now.
   */
  async acquireOrRenew(instance: string, url: string, leaseMs: number): Promise<LeaseRow | undefined> {
    const result = await sql<LeaseRow>`
      INSERT INTO cluster_licence_lease AS lease
        (id, holder, holder_url, term, acquired_at, renewed_at, expires_at)
      VALUES (1, ${instance}, ${url}, 1, now(), now(), now() + ${leaseMs} * interval '1 millisecond')
      ON CONFLICT (id) DO UPDATE SET
        holder = excluded.holder,
        holder_url = excluded.holder_url,
        term = CASE WHEN lease.holder = excluded.holder THEN lease.term ELSE lease.term + 1 END,
        acquired_at = CASE WHEN lease.holder = excluded.holder THEN lease.acquired_at ELSE now() END,
        renewed_at = now(),
        expires_at = excluded.expires_at
      WHERE lease.holder = excluded.holder OR lease.expires_at <= now()
      RETURNING holder, holder_url, term, acquired_at, renewed_at, expires_at, licence`.execute(this.db);
    return result.rows[0];
  }

  /** Gives the lease up at once (a stopping holder), so another instance takes it at its next beat. */
  async release(instance: string): Promise<void> {
    await sql`UPDATE cluster_licence_lease SET expires_at = now() WHERE holder = ${instance}`.execute(
      this.db,
    );
  }

  /** Stores the verified licence; only the holder of `term` whose lease has not expired may (fencing). */
  async writeLicence(instance: string, term: number, licence: ClusterLicenceFacts): Promise<boolean> {
    const result = await sql`
      UPDATE cluster_licence_lease SET licence = ${JSON.stringify(licence)}::jsonb
      WHERE holder = ${instance} AND term = ${term} AND expires_at > now()`.execute(this.db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  async seen(instance: string, url: string): Promise<void> {
    await sql`
      INSERT INTO cluster_licence_members (instance_id, url, last_seen_at) VALUES (${instance}, ${url}, now())
      ON CONFLICT (instance_id) DO UPDATE SET url = excluded.url, last_seen_at = now()`.execute(this.db);
  }

  /** The lease (expired or not), the members seen within a day, and the database's clock. */
  async read(): Promise<{ now: Date; lease: LeaseRow | undefined; members: MemberRow[] }> {
    const now = await sql<{ now: Date }>`SELECT now() AS now`.execute(this.db);
    const lease = await sql<LeaseRow>`
      SELECT holder, holder_url, term, acquired_at, renewed_at, expires_at, licence
      FROM cluster_licence_lease WHERE id = 1`.execute(this.db);
    const members = await sql<MemberRow>`
      SELECT instance_id, url, last_seen_at FROM cluster_licence_members
      WHERE last_seen_at > now() - interval '1 day' ORDER BY instance_id`.execute(this.db);
    return { now: new Date(now.rows[0]!.now), lease: lease.rows[0], members: members.rows };
  }
}
