import type { Kysely, Selectable } from 'kysely';
import type { StorageDatabase, StorageMountsTable } from '../storage.db.js';

export type MountRow = Selectable<StorageMountsTable>;

/** SQL for storage_mounts. */
export class MountsRepository {
  constructor(private readonly db: Kysely<StorageDatabase>) {}

  list(): Promise<MountRow[]> {
    return this.db.selectFrom('storage_mounts').selectAll().orderBy('name').orderBy('id').execute();
  }

  async get(id: string): Promise<MountRow | undefined> {
    return this.db.selectFrom('storage_mounts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async nameTaken(name: string, exceptId?: string): Promise<boolean> {
    let query = this.db
      .selectFrom('storage_mounts')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()));
    if (exceptId) query = query.where('id', '!=', exceptId);
    return (await query.executeTakeFirst()) !== undefined;
  }

  async insert(row: MountRow): Promise<void> {
    await this.db
      .insertInto('storage_mounts')
      .values({ ...row, config: JSON.stringify(row.config) })
      .execute();
  }

  async update(id: string, changes: { name: string; config: Record<string, unknown>; updatedAt: Date }) {
    await this.db
      .updateTable('storage_mounts')
      .set({ name: changes.name, config: JSON.stringify(changes.config), updated_at: changes.updatedAt })
      .where('id', '=', id)
      .execute();
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('storage_mounts').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
