import { sql, type Kysely, type Selectable } from 'kysely';
import type { StorageDatabase, StorageDriveAccountsTable } from '../storage.db.js';

export type DriveAccountRow = Selectable<StorageDriveAccountsTable>;

/** SQL for storage_drive_accounts, and the mounts that name an account. */
export class DriveAccountsRepository {
  constructor(private readonly db: Kysely<StorageDatabase>) {}

  list(): Promise<DriveAccountRow[]> {
    return this.db.selectFrom('storage_drive_accounts').selectAll().orderBy('name').orderBy('id').execute();
  }

  get(id: string): Promise<DriveAccountRow | undefined> {
    return this.db.selectFrom('storage_drive_accounts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async nameTaken(name: string, exceptId?: string): Promise<boolean> {
    let query = this.db
      .selectFrom('storage_drive_accounts')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()));
    if (exceptId) query = query.where('id', '!=', exceptId);
    return (await query.executeTakeFirst()) !== undefined;
  }

  /** How many mounts name each account (accounts no mount uses are absent). */
  async mountCounts(): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('storage_mounts')
      .select([
        sql<string>`config->>'accountId'`.as('account_id'),
        (eb) => eb.fn.countAll<string>().as('count'),
      ])
      .where(sql<boolean>`config ? 'accountId'`)
      .groupBy(sql`config->>'accountId'`)
      .execute();
    return new Map(rows.map((row) => [row.account_id, Number(row.count)]));
  }

  async insert(row: DriveAccountRow): Promise<void> {
    await this.db
      .insertInto('storage_drive_accounts')
      .values({ ...row, config: JSON.stringify(row.config) })
      .execute();
  }

  async update(id: string, changes: { name: string; config: Record<string, unknown>; updatedAt: Date }) {
    await this.db
      .updateTable('storage_drive_accounts')
      .set({ name: changes.name, config: JSON.stringify(changes.config), updated_at: changes.updatedAt })
      .where('id', '=', id)
      .execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('storage_drive_accounts').where('id', '=', id).execute();
  }
}
