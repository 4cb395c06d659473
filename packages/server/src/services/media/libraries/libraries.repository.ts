import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { LibrarySourceInput, LibraryType } from '@svc/contracts';
import type { LibrariesTable, LibrarySourcesTable, MediaDatabase } from '../media.db.js';

export type LibraryRow = Selectable<LibrariesTable>;
export type SourceRow = Selectable<LibrarySourcesTable>;
export interface LibraryCounts {
  movies: number;
  series: number;
  seasons: number;
  episodes: number;
}

const sameSource = (row: SourceRow, input: LibrarySourceInput) =>
  row.node_id === input.nodeId && row.mount_id === input.mountId && row.path === input.path;

/** Libraries and their sources. */
export class LibrariesRepository {
  constructor(private readonly db: Kysely<MediaDatabase>) {}

  async list(): Promise<LibraryRow[]> {
    return this.db.selectFrom('libraries').selectAll().orderBy('name').orderBy('id').execute();
  }

  async get(id: string): Promise<LibraryRow | undefined> {
    return this.db.selectFrom('libraries').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async sourcesOf(libraryIds: readonly string[]): Promise<SourceRow[]> {
    if (libraryIds.length === 0) return [];
    return this.db
      .selectFrom('library_sources')
      .selectAll()
      .where('library_id', 'in', libraryIds)
      .orderBy('library_id')
      .orderBy('position')
      .execute();
  }

  /** Every source of every library, with its library's name (for the inbound webhook). */
  async allSources(): Promise<(SourceRow & { library_name: string })[]> {
    return this.db
      .selectFrom('library_sources')
      .innerJoin('libraries', 'libraries.id', 'library_sources.library_id')
      .selectAll('library_sources')
      .select('libraries.name as library_name')
      .orderBy('libraries.name')
      .orderBy('library_sources.position')
      .execute();
  }

  /** Throws the database's unique violation (23505) when the name is taken. */
  async create(
    library: { name: string; type: LibraryType },
    sources: readonly LibrarySourceInput[],
    now: Date,
  ): Promise<string> {
    const id = randomUUID();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('libraries')
        .values({ id, name: library.name, type: library.type, created_at: now, updated_at: now })
        .execute();
      await trx
        .insertInto('library_sources')
        .values(
          sources.map((source, position) => ({
            id: randomUUID(),
            library_id: id,
            position,
            node_id: source.nodeId,
            mount_id: source.mountId,
            path: source.path,
          })),
        )
        .execute();
    });
    return id;
  }

  /**
   * Renames and/or replaces the sources. A source listed again (same node, mount and path) keeps its id and
   * its items; a source left out is deleted with its items. Throws 23505 when the name is taken.
   */
  async update(
    id: string,
    change: { name?: string; sources?: readonly LibrarySourceInput[] },
    now: Date,
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('libraries')
        .set({ updated_at: now, ...(change.name !== undefined ? { name: change.name } : {}) })
        .where('id', '=', id)
        .execute();
      if (!change.sources) return;
      const existing = await trx
        .selectFrom('library_sources')
        .selectAll()
        .where('library_id', '=', id)
        .execute();
      const keep = new Set<string>();
      for (const [position, input] of change.sources.entries()) {
        const found = existing.find((row) => sameSource(row, input));
        if (found) {
          keep.add(found.id);
          await trx.updateTable('library_sources').set({ position }).where('id', '=', found.id).execute();
        } else {
          await trx
            .insertInto('library_sources')
            .values({
              id: randomUUID(),
              library_id: id,
              position,
              node_id: input.nodeId,
              mount_id: input.mountId,
              path: input.path,
            })
            .execute();
        }
      }
      const drop = existing.filter((row) => !keep.has(row.id)).map((row) => row.id);
      if (drop.length > 0) await trx.deleteFrom('library_sources').where('id', 'in', drop).execute();
    });
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('libraries').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async counts(libraryIds: readonly string[]): Promise<Map<string, LibraryCounts>> {
    const counts = new Map<string, LibraryCounts>();
    for (const id of libraryIds) counts.set(id, { movies: 0, series: 0, seasons: 0, episodes: 0 });
    if (libraryIds.length === 0) return counts;
    const rows = await this.db
      .selectFrom('media_items')
      .select(['library_id', 'kind', (eb) => eb.fn.countAll<number>().as('count')])
      .where('library_id', 'in', libraryIds)
      .groupBy(['library_id', 'kind'])
      .execute();
    for (const row of rows) {
      const entry = counts.get(row.library_id);
      if (!entry) continue;
      const count = Number(row.count);
      if (row.kind === 'movie') entry.movies = count;
      else if (row.kind === 'series') entry.series = count;
      else if (row.kind === 'season') entry.seasons = count;
      else entry.episodes = count;
    }
    return counts;
  }
}
