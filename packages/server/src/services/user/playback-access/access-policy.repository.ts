import type { Kysely } from 'kysely';
import type { LibraryAccess, NodeAccess, Quotas } from '@svc/contracts';
import type { UserDatabase } from '../user.db.js';

/** A user's node access, library access and traffic quotas. */
export class AccessPolicyRepository {
  constructor(private readonly db: Kysely<UserDatabase>) {}

  /** The stored node access; undefined when none was ever written (treated as mode ALL). */
  async nodeAccess(userId: string): Promise<NodeAccess | undefined> {
    const row = await this.db
      .selectFrom('user_node_access')
      .select(['mode', 'entries'])
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row ? { mode: row.mode, entries: row.entries } : undefined;
  }

  async setNodeAccess(userId: string, access: NodeAccess, now: Date): Promise<void> {
    const entries = JSON.stringify(access.entries);
    await this.db
      .insertInto('user_node_access')
      .values({ user_id: userId, mode: access.mode, entries, updated_at: now })
      .onConflict((conflict) =>
        conflict.column('user_id').doUpdateSet({ mode: access.mode, entries, updated_at: now }),
      )
      .execute();
  }

  /** The stored library access; undefined when none was ever written (treated as mode ALL). */
  async libraryAccess(userId: string): Promise<LibraryAccess | undefined> {
    const row = await this.db
      .selectFrom('user_library_access')
      .select(['mode', 'library_ids'])
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row ? { mode: row.mode, libraryIds: row.library_ids } : undefined;
  }

  async setLibraryAccess(userId: string, access: LibraryAccess, now: Date): Promise<void> {
    const ids = JSON.stringify(access.libraryIds);
    await this.db
      .insertInto('user_library_access')
      .values({ user_id: userId, mode: access.mode, library_ids: ids, updated_at: now })
      .onConflict((conflict) =>
        conflict.column('user_id').doUpdateSet({ mode: access.mode, library_ids: ids, updated_at: now }),
      )
      .execute();
  }

  async quotas(userId: string): Promise<Quotas> {
    const rows = await this.db
      .selectFrom('user_quotas')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('target_kind')
      .orderBy('target_id')
      .execute();
    const quota = (row: (typeof rows)[number]) => ({
      enabled: row.enabled,
      amount: row.amount,
      unit: row.unit,
      period: row.period,
    });
    const total = rows.find((row) => row.scope === 'total');
    return {
      total: total ? quota(total) : null,
      routes: rows
        .filter((row) => row.scope === 'route' && row.target_kind !== '')
        .map((row) => ({ kind: row.target_kind as 'node' | 'endpoint', id: row.target_id, ...quota(row) })),
    };
  }

  /** Replaces every quota of the user (run inside a transaction). */
  async replaceQuotas(userId: string, quotas: Quotas): Promise<void> {
    await this.db.deleteFrom('user_quotas').where('user_id', '=', userId).execute();
    const rows = [
      ...(quotas.total
        ? [{ scope: 'total' as const, target_kind: '' as const, target_id: '', ...quotas.total }]
        : []),
      ...quotas.routes.map(({ kind, id, ...quota }) => ({
        scope: 'route' as const,
        target_kind: kind,
        target_id: id,
        ...quota,
      })),
    ];
    if (rows.length === 0) return;
    await this.db
      .insertInto('user_quotas')
      .values(
        rows.map((row) => ({
          user_id: userId,
          scope: row.scope,
          target_kind: row.target_kind,
          target_id: row.target_id,
          enabled: row.enabled,
          amount: row.amount,
          unit: row.unit,
          period: row.period,
        })),
      )
      .execute();
  }
}
