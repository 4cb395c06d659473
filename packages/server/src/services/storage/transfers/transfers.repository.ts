import type { Kysely, Selectable, Updateable } from 'kysely';
import type { StorageDatabase, StorageTransfersTable, TransferStateColumn } from '../storage.db.js';

export type TransferRow = Selectable<StorageTransfersTable>;

/** SQL for storage_transfers. */
export class TransfersRepository {
  constructor(private readonly db: Kysely<StorageDatabase>) {}

  async insert(row: TransferRow): Promise<void> {
    await this.db.insertInto('storage_transfers').values(row).execute();
  }

  get(id: string): Promise<TransferRow | undefined> {
    return this.db.selectFrom('storage_transfers').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async update(id: string, changes: Updateable<StorageTransfersTable>): Promise<void> {
    await this.db.updateTable('storage_transfers').set(changes).where('id', '=', id).execute();
  }

  async page(options: { state?: TransferStateColumn; page: number; pageSize: number }) {
    let base = this.db.selectFrom('storage_transfers');
    if (options.state) base = base.where('state', '=', options.state);
    const [items, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .limit(options.pageSize)
        .offset((options.page - 1) * options.pageSize)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.total) };
  }

  withStates(states: TransferStateColumn[]): Promise<TransferRow[]> {
    return this.db
      .selectFrom('storage_transfers')
      .selectAll()
      .where('state', 'in', states)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  async activeForMount(mountId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('storage_transfers')
      .select('id')
      .where('state', 'in', ['queued', 'running'])
      .where((eb) => eb.or([eb('source_mount_id', '=', mountId), eb('target_mount_id', '=', mountId)]))
      .executeTakeFirst();
    return row !== undefined;
  }

  async pruneFinishedBefore(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('storage_transfers')
      .where('state', 'in', ['succeeded', 'failed', 'cancelled'])
      .where('finished_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
