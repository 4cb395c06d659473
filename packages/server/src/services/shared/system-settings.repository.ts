import type { ColumnType, Generated, Kysely } from 'kysely';

/** Every service database has this key/value table for the settings that service owns (migration V001). */
export interface SystemSettingsTable {
  key: string;
  /** JSON: read as a value, written as its JSON text. */
  value: ColumnType<unknown, string, string>;
  updated_at: Generated<Date>;
}

interface SettingsOnly {
  system_settings: SystemSettingsTable;
}

/** A service's rows of system_settings: JSON values by key. */
export class SystemSettingsRepository<DB extends SettingsOnly = SettingsOnly> {
  private readonly db: Kysely<SettingsOnly>;

  constructor(db: Kysely<DB>) {
    // Each service's database type includes the table; only that table is used here.
    this.db = db as unknown as Kysely<SettingsOnly>;
  }

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
