import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { RecordAuditRequest } from '@svc/contracts';
import type { ConfigDatabase } from '../config.db.js';
import { DeploymentRepository } from '../deployment/deployment.repository.js';

export interface StoredLicense {
  id: string;
  lease: string;
  /** The payload as stored; it is trusted only after the lease verifies again. */
  payload: unknown;
  activatedAt: Date;
  updatedAt: Date;
}

export interface PendingAudit {
  id: string;
  entry: RecordAuditRequest;
  attempts: number;
}

/** The licence tables of svc_config (V005__licenses); the only place with their SQL. */
export class LicensesRepository {
  constructor(private readonly db: Kysely<ConfigDatabase>) {}

  /** Runs work in one transaction, with this repository and the deployment state bound to it. */
  transaction<T>(
    work: (repositories: { licenses: LicensesRepository; deployment: DeploymentRepository }) => Promise<T>,
  ): Promise<T> {
    return this.db
      .transaction()
      .execute((trx) =>
        work({ licenses: new LicensesRepository(trx), deployment: new DeploymentRepository(trx) }),
      );
  }

  /** The current licence: the one activated last. */
  async current(): Promise<StoredLicense | undefined> {
    const row = await this.db
      .selectFrom('licenses')
      .selectAll()
      .orderBy('activated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && toStored(row);
  }

  async find(id: string, options: { lock?: boolean } = {}): Promise<StoredLicense | undefined> {
    let query = this.db.selectFrom('licenses').selectAll().where('id', '=', id);
    if (options.lock) query = query.forUpdate();
    const row = await query.executeTakeFirst();
    return row && toStored(row);
  }

  /** Marks a code used; false when it was used before (nothing written then). */
  async useCode(codeId: string, licenseId: string, now: Date): Promise<boolean> {
    const inserted = await this.db
      .insertInto('license_codes')
      .values({ code_id: codeId, license_id: licenseId, used_at: now })
      .onConflict((conflict) => conflict.column('code_id').doNothing())
      .returning('code_id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  async codeUsed(codeId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('license_codes')
      .select('code_id')
      .where('code_id', '=', codeId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Stores an activated lease: a new licence, or a new lease (renewal) for a known licence id. */
  async activate(id: string, lease: string, payload: unknown, now: Date): Promise<void> {
    const json = JSON.stringify(payload);
    await this.db
      .insertInto('licenses')
      .values({ id, lease, payload: json, activated_at: now, updated_at: now })
      .onConflict((conflict) =>
        conflict.column('id').doUpdateSet({ lease, payload: json, activated_at: now, updated_at: now }),
      )
      .execute();
  }

  /** Replaces the lease of a licence without changing when it was activated (edition upgrade). */
  async replaceLease(id: string, lease: string, payload: unknown, now: Date): Promise<void> {
    await this.db
      .updateTable('licenses')
      .set({ lease, payload: JSON.stringify(payload), updated_at: now })
      .where('id', '=', id)
      .execute();
  }

  async queueAudit(entry: RecordAuditRequest, now: Date): Promise<void> {
    await this.db
      .insertInto('license_audit_outbox')
      .values({ id: randomUUID(), entry: JSON.stringify(entry), created_at: now })
      .execute();
  }

  async pendingAudits(limit = 100): Promise<PendingAudit[]> {
    const rows = await this.db
      .selectFrom('license_audit_outbox')
      .select(['id', 'entry', 'attempts'])
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      id: row.id,
      entry: row.entry as RecordAuditRequest,
      attempts: row.attempts,
    }));
  }

  async auditDelivered(id: string): Promise<void> {
    await this.db.deleteFrom('license_audit_outbox').where('id', '=', id).execute();
  }

  async auditFailed(id: string, error: string): Promise<void> {
    await this.db
      .updateTable('license_audit_outbox')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: error.slice(0, 500) }))
      .where('id', '=', id)
      .execute();
  }
}

function toStored(row: {
  id: string;
  lease: string;
  payload: unknown;
  activated_at: Date;
  updated_at: Date;
}): StoredLicense {
  return {
    id: row.id,
    lease: row.lease,
    payload: row.payload,
    activatedAt: row.activated_at,
    updatedAt: row.updated_at,
  };
}
