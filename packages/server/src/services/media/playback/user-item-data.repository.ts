import { sql, type Kysely, type Selectable } from 'kysely';
import type { MediaDatabase, UserItemDataTable } from '../media.db.js';

export type UserItemDataRow = Selectable<UserItemDataTable>;

/** What one update reports; fields left out are kept. */
export interface UserItemDataChange {
  played?: boolean;
  isFavorite?: boolean;
  positionTicks?: number;
  countPlay?: boolean;
  /** When the play happened (default: now). */
  lastPlayedAt?: Date;
  /** Stored values replaced as they are, after the rules above, with no side effect on the others. */
  replace?: {
    played?: boolean;
    playCount?: number;
    positionTicks?: number;
    lastPlayedAt?: Date | null;
  };
}

type State = Pick<
  UserItemDataRow,
  'played' | 'play_count' | 'is_favorite' | 'position_ticks' | 'last_played_at'
>;

export const DEFAULT_USER_ITEM_DATA: State = {
  played: false,
  play_count: 0,
  is_favorite: false,
  position_ticks: 0,
  last_played_at: null,
};

/**
 * The rules of one update of a movie or an episode, applied in this order:
 * - `isFavorite` sets the favourite flag;
 * - `positionTicks` saves the position and counts as playback (last played = `lastPlayedAt` or now);
 * - `countPlay` adds one play (and sets last played);
 * - `played: true` marks it played: position back to 0, at least one play, last played set;
 * - `played: false` marks it unplayed and clears its history: position 0, no plays, never played;
 * - `lastPlayedAt` alone sets last played;
 * - `replace` then overwrites the values it names and nothing else.
 */
export function applyUserItemDataChange(current: State, change: UserItemDataChange, now: Date): State {
  const at = change.lastPlayedAt ?? now;
  const next: State = { ...current };
  if (change.isFavorite !== undefined) next.is_favorite = change.isFavorite;
  if (change.positionTicks !== undefined) {
    next.position_ticks = change.positionTicks;
    next.last_played_at = at;
  }
  if (change.countPlay) {
    next.play_count += 1;
    next.last_played_at = at;
  }
  if (change.played === true) {
    next.played = true;
    next.position_ticks = 0;
    next.play_count = Math.max(next.play_count, 1);
    next.last_played_at = at;
  } else if (change.played === false) {
    next.played = false;
    next.position_ticks = 0;
    next.play_count = 0;
    next.last_played_at = null;
  } else if (change.lastPlayedAt !== undefined) {
    next.last_played_at = change.lastPlayedAt;
  }
  const replace = change.replace ?? {};
  if (replace.played !== undefined) next.played = replace.played;
  if (replace.playCount !== undefined) next.play_count = replace.playCount;
  if (replace.positionTicks !== undefined) next.position_ticks = replace.positionTicks;
  if (replace.lastPlayedAt !== undefined) next.last_played_at = replace.lastPlayedAt;
  return next;
}

/** Per-user played state, play count, favourite and position of the items (table user_item_data). */
export class UserItemDataRepository {
  constructor(private readonly db: Kysely<MediaDatabase>) {}

  async get(userId: string, itemId: string): Promise<UserItemDataRow | undefined> {
    return this.db
      .selectFrom('user_item_data')
      .selectAll()
      .where('user_id', '=', userId)
      .where('item_id', '=', itemId)
      .executeTakeFirst();
  }

  /** Applies a change to one item's row (created with the defaults when absent), under a row lock. */
  async apply(
    userId: string,
    itemId: string,
    change: UserItemDataChange,
    now: Date,
  ): Promise<UserItemDataRow> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('user_item_data')
        .values({ user_id: userId, item_id: itemId, ...DEFAULT_USER_ITEM_DATA, updated_at: now })
        .onConflict((oc) => oc.columns(['user_id', 'item_id']).doNothing())
        .execute();
      const current = await trx
        .selectFrom('user_item_data')
        .selectAll()
        .where('user_id', '=', userId)
        .where('item_id', '=', itemId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      const next = applyUserItemDataChange(current, change, now);
      return trx
        .updateTable('user_item_data')
        .set({ ...next, updated_at: now })
        .where('user_id', '=', userId)
        .where('item_id', '=', itemId)
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  /**
   * Marks every episode of a series (`series_id`) or a season (`parent_id`) played or unplayed, each as
   * `applyUserItemDataChange` would with `played` alone. Marking played leaves episodes already played as
   * they are (their plays and date are kept); marking unplayed clears every episode's history.
   */
  async markEpisodes(
    userId: string,
    container: { id: string; kind: 'series' | 'season' },
    played: boolean,
    at: Date,
    now: Date,
  ): Promise<number> {
    const column = sql.ref(container.kind === 'series' ? 'e.series_id' : 'e.parent_id');
    if (played) {
      const result = await sql`
        INSERT INTO user_item_data
          (user_id, item_id, played, play_count, is_favorite, position_ticks, last_played_at, updated_at)
        SELECT ${userId}::uuid, e.id, true, 1, false, 0, ${at}::timestamptz, ${now}::timestamptz
        FROM media_items e
        WHERE ${column} = ${container.id}::uuid AND e.kind = 'episode'
        ON CONFLICT (user_id, item_id) DO UPDATE SET
          played = true,
          position_ticks = 0,
          play_count = greatest(user_item_data.play_count, 1),
          last_played_at = excluded.last_played_at,
          updated_at = excluded.updated_at
        WHERE user_item_data.played = false
      `.execute(this.db);
      return Number(result.numAffectedRows ?? 0);
    }
    const result = await sql`
      UPDATE user_item_data u
      SET played = false, play_count = 0, position_ticks = 0, last_played_at = NULL, updated_at = ${now}
      FROM media_items e
      WHERE u.user_id = ${userId}::uuid AND u.item_id = e.id
        AND ${column} = ${container.id}::uuid AND e.kind = 'episode'
    `.execute(this.db);
    return Number(result.numAffectedRows ?? 0);
  }
}
