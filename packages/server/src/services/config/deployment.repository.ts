import type { Kysely } from 'kysely';
import type { Edition } from '@svc/contracts';
import type { ConfigDatabase } from './config.db.js';

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
}
