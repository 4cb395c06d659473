import type { Kysely, Selectable } from 'kysely';
import type { ImageContentType } from '@svc/contracts';

/** Table image_uploads (migration V008__image_uploads). */
export interface ImageUploadsTable {
  id: string;
  content_type: ImageContentType;
  size: number;
  sha256: string;
  data: Buffer;
  uploaded_by: string | null;
  created_at: Date;
}

interface UploadsOnly {
  image_uploads: ImageUploadsTable;
}

export type ImageUploadRow = Selectable<ImageUploadsTable>;
export type ImageUploadInfo = Omit<ImageUploadRow, 'data'>;

/** The only SQL of image uploads. */
export class ImageUploadsRepository<DB = UploadsOnly> {
  private readonly db: Kysely<UploadsOnly>;

  constructor(db: Kysely<DB>) {
    // The config database's type includes the table through its migration; only this table is used here.
    this.db = db as unknown as Kysely<UploadsOnly>;
  }

  async insert(row: ImageUploadRow): Promise<void> {
    await this.db.insertInto('image_uploads').values(row).execute();
  }

  async find(id: string): Promise<ImageUploadRow | undefined> {
    return this.db.selectFrom('image_uploads').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('image_uploads').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Deletes uploads that arrived at or before `before`; answers how many. */
  async deleteArrivedBy(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('image_uploads')
      .where('created_at', '<=', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Keeps the newest `keep` uploads (by arrival, then id) and deletes the rest; answers how many went. */
  async keepNewest(keep: number): Promise<number> {
    const newest = this.db
      .selectFrom('image_uploads')
      .select('id')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(keep);
    const result = await this.db.deleteFrom('image_uploads').where('id', 'not in', newest).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async list(): Promise<ImageUploadInfo[]> {
    return this.db
      .selectFrom('image_uploads')
      .select(['id', 'content_type', 'size', 'sha256', 'uploaded_by', 'created_at'])
      .orderBy('created_at')
      .execute();
  }
}
