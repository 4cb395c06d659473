import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Edition } from '@svc/contracts';
import type { ConfigDatabase } from '../config.db.js';

export class DeploymentRepository {
  constructor(private readonly db: Kysely<ConfigDatabase>) {}

  async edition(): Promise<Edition> {
    const row = await this.db
      .selectFrom('deployment_state')
      .select('edition')
      .where('id', '=', 1)
      .executeTakeFirst();
    return row?.edition ?? 'STANDALONE';
  }

  /**
   * The edition, read with a row lock inside a transaction (this repository built on the transaction):
   * licence activation and the edition upgrade hold it until they commit, so they never interleave.
   */
  async lockEdition(): Promise<Edition> {
    const row = await this.db
      .selectFrom('deployment_state')
      .select('edition')
      .where('id', '=', 1)
      .forUpdate()
      .executeTakeFirst();
    return row?.edition ?? 'STANDALONE';
  }

  async setEdition(edition: Edition, now: Date): Promise<void> {
    await this.db
      .updateTable('deployment_state')
      .set({ edition, updated_at: now })
      .where('id', '=', 1)
      .execute();
  }

  /** This install's id (made by V005; made here if the row somehow lacks one). */
  async installId(): Promise<string> {
    const row = await this.db
      .selectFrom('deployment_state')
      .select('install_id')
      .where('id', '=', 1)
      .executeTakeFirst();
    if (row?.install_id) return row.install_id;
    await this.db
      .updateTable('deployment_state')
      .set({ install_id: `inst-${randomUUID()}` })
      .where('id', '=', 1)
      .where('install_id', 'is', null)
      .execute();
    const again = await this.db
      .selectFrom('deployment_state')
      .select('install_id')
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    return again.install_id ?? '';
  }
}
