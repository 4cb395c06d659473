import type { Kysely } from 'kysely';
import type { MediaDatabase } from './media.db.js';

/** The media service's rows of system_settings (JSON values by key). */
export class MediaSettingsRepository {
  constructor(private readonly db: Kysely<MediaDatabase>) {}

  async get(key: string): Promise<unknown> {
    const row = await this.db
      .selectFrom('system_settings')
      .select('value')
      .where('key', '=', key)
      .executeTakeFirst();
    return row?.value;
  }

  async set(key: string, value: unknown, now: Date): Promise<void> {
    const json = JSON.stringify(value);
    await this.db
      .insertInto('system_settings')
      .values({ key, value: json, updated_at: now })
      .onConflict((conflict) => conflict.column('key').doUpdateSet({ value: json, updated_at: now }))
      .execute();
  }
}
