import type { Kysely, Selectable } from 'kysely';
import type { AuditLogTable, UserDatabase } from '../user.db.js';

export type AuditRow = Selectable<AuditLogTable>;

export interface NewAuditRecord {
  at: Date;
  actorId: string | null;
  actorName: string;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
  clientIp: string | null;
}

export interface AuditFilter {
  offset: number;
  limit: number;
  action?: string;
  actorId?: string;
  /** User name of the actor, without regard to case. */
  actorName?: string;
  from?: Date;
  to?: Date;
}

export class AuditRepository {
  constructor(private readonly db: Kysely<UserDatabase>) {}

  async insert(record: NewAuditRecord): Promise<void> {
    await this.db
      .insertInto('audit_log')
      .values({
        at: record.at,
        actor_id: record.actorId,
        actor_name: record.actorName,
        action: record.action,
        target_type: record.targetType,
        target_id: record.targetId,
        details: JSON.stringify(record.details),
        client_ip: record.clientIp,
      })
      .execute();
  }

  /** Newest first; `from` inclusive, `to` exclusive. */
  async list(filter: AuditFilter): Promise<{ rows: AuditRow[]; total: number }> {
    let filtered = this.db.selectFrom('audit_log');
    if (filter.action) filtered = filtered.where('action', '=', filter.action);
    if (filter.actorId) filtered = filtered.where('actor_id', '=', filter.actorId);
    if (filter.actorName) {
      const name = filter.actorName.toLowerCase();
      filtered = filtered.where((eb) => eb(eb.fn('lower', ['actor_name']), '=', name));
    }
    if (filter.from) filtered = filtered.where('at', '>=', filter.from);
    if (filter.to) filtered = filtered.where('at', '<', filter.to);
    const rows = await filtered
      .selectAll()
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .offset(filter.offset)
      .limit(filter.limit)
      .execute();
    const count = await filtered
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return { rows, total: Number(count.count) };
  }
}
