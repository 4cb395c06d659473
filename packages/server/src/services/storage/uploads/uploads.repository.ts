import type { Kysely, Selectable, Updateable } from 'kysely';
import type { StorageDatabase, StorageUploadsTable } from '../storage.db.js';

export type UploadRow = Selectable<StorageUploadsTable>;

/** SQL for storage_uploads and storage_upload_chunks. */
export class UploadsRepository {
  constructor(private readonly db: Kysely<StorageDatabase>) {}

  async insert(row: UploadRow): Promise<void> {
    await this.db.insertInto('storage_uploads').values(row).execute();
  }

  get(id: string): Promise<UploadRow | undefined> {
    return this.db.selectFrom('storage_uploads').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async update(id: string, changes: Updateable<StorageUploadsTable>): Promise<void> {
    await this.db.updateTable('storage_uploads').set(changes).where('id', '=', id).execute();
  }

  /** Moves an upload from one state to another; false when it was not in `from` any more. */
  async transition(
    id: string,
    from: UploadRow['state'][],
    to: UploadRow['state'],
    at: Date,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('storage_uploads')
      .set({ state: to, updated_at: at })
      .where('id', '=', id)
      .where('state', 'in', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async receivedChunks(id: string): Promise<number[]> {
    const rows = await this.db
      .selectFrom('storage_upload_chunks')
      .select('chunk_index')
      .where('upload_id', '=', id)
      .orderBy('chunk_index')
      .execute();
    return rows.map((row) => row.chunk_index);
  }

  async countChunks(id: string): Promise<number> {
    const row = await this.db
      .selectFrom('storage_upload_chunks')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('upload_id', '=', id)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async markChunk(id: string, index: number, at: Date, expiresAt: Date): Promise<void> {
    await this.db
      .insertInto('storage_upload_chunks')
      .values({ upload_id: id, chunk_index: index })
      .onConflict((oc) => oc.doNothing())
      .execute();
    await this.db
      .updateTable('storage_uploads')
      .set({ updated_at: at, expires_at: expiresAt })
      .where('id', '=', id)
      .execute();
  }

  /** Open or completing uploads whose time ran out. */
  expired(now: Date): Promise<UploadRow[]> {
    return this.db
      .selectFrom('storage_uploads')
      .selectAll()
      .where('state', 'in', ['open', 'completing'])
      .where('expires_at', '<', now)
      .execute();
  }

  /** Temp names of uploads still in progress on a mount (the temp cleanup keeps those). */
  async liveStagings(): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('storage_uploads')
      .select('staging')
      .where('state', 'in', ['open', 'completing'])
      .execute();
    return new Set(rows.map((row) => row.staging));
  }

  async openForMount(mountId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('storage_uploads')
      .select('id')
      .where('mount_id', '=', mountId)
      .where('state', 'in', ['open', 'completing'])
      .executeTakeFirst();
    return row !== undefined;
  }

  async pruneFinishedBefore(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('storage_uploads')
      .where('state', 'in', ['completed', 'aborted'])
      .where('updated_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
