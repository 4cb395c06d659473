import type { Kysely } from 'kysely';
import type { NewMediaEvent, MediaEventsRepository } from '../events/media-events.repository.js';
import type { ItemPatch, ItemsRepository, NewItemRow } from '../items/items.repository.js';
import type { MediaDatabase } from '../media.db.js';

/** A batch of prepared items a scan writes at once. */
export interface ScanBatch {
  inserts: readonly NewItemRow[];
  updates: readonly { id: string; values: ItemPatch }[];
  /** The `media.added` events of the inserted items. */
  events: readonly NewMediaEvent[];
}

/**
 * Writes a scan's batches: new items, changed items and the events of the new ones in one transaction, so
 * an outbound webhook never announces an item that is not stored, nor misses one that is.
 */
export class ScanBatchRepository {
  constructor(
    private readonly db: Kysely<MediaDatabase>,
    private readonly items: ItemsRepository,
    private readonly events: MediaEventsRepository,
  ) {}

  async write(batch: ScanBatch): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await this.items.insertMany(trx, batch.inserts);
      for (const update of batch.updates) await this.items.update(trx, update.id, update.values);
      await this.events.insert(trx, batch.events);
    });
  }

  /** One series or season item, new: a single statement, no transaction. */
  async insertItem(row: NewItemRow): Promise<void> {
    await this.items.insert(this.db, row);
  }

  /** One series or season item, changed. */
  async updateItem(id: string, values: ItemPatch): Promise<void> {
    await this.items.update(this.db, id, values);
  }
}
