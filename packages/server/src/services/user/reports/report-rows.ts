import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { ActivityMediaType, AccountRole, ReportPlatform, ReportSort } from '@svc/contracts';
import type { UserDatabase } from '../user.db.js';
import { eventsIn, type EventFilter } from './report-sql.js';
import { timeRowsIn } from './time-rollup-sql.js';

export type { EventFilter } from './report-sql.js';

/** Figures of one period of the overview. */
export interface PeriodSummary {
  activeUsers: number;
  playCount: number;
  watchMs: number;
  bytes: number;
  peakConcurrency: number;
}

/** A window's totals from the time rollups (see windowTotals). */
export interface WindowTotals {
  users: number;
  plays: number;
  watchMs: number;
  bytes: number;
}

export interface TimelineRow {
  bucket: Date;
  activeUsers: number;
  playCount: number;
  watchMs: number;
  bytes: number;
}

/** The concurrency sweep per bucket: sessions starting and ending in it, the highest running count at a start. */
export interface ConcurrencyRow {
  bucket: Date;
  starts: number;
  ends: number;
  peak: number | null;
}

export interface HourRow {
  hour: Date;
  playCount: number;
  watchMs: number;
}

export interface Figures {
  playCount: number;
  watchMs: number;
  bytes: number;
  sessions: number;
}

export interface UserFigures extends Figures {
  userId: string;
  /** The account's name, or for a deleted account the name of its latest event in the window. */
  username: string;
  deleted: boolean;
  lastPlayedAt: Date;
}

export interface MediaFigures extends Figures {
  mediaId: string;
  mediaName: string;
  seriesName: string | null;
  mediaType: ActivityMediaType;
  users: number;
}

export interface InactiveUserRow {
  id: string;
  username: string;
  display_name: string;
  role: AccountRole;
  disabled: boolean;
  created_at: Date;
  last_played_at: Date | null;
}

export interface DistributionRow extends Figures {
  kind: 'client' | 'platform' | 'device';
  client: string | null;
  deviceName: string | null;
  platform: ReportPlatform | null;
  users: number;
}

export interface MediaInfo {
  mediaId: string;
  mediaName: string;
  seriesName: string | null;
  mediaType: ActivityMediaType;
}

/** Which events of a device drill-down count: one client (optionally one device of it) or one platform. */
export type DeviceSelector =
  { client: string; deviceName?: string | undefined } | { platform: ReportPlatform };

export interface UserPlayRow {
  session_id: string;
  media_id: string;
  media_name: string;
  series_name: string | null;
  media_type: ActivityMediaType;
  client: string;
  device_name: string;
  platform: ReportPlatform;
  play_method: string;
  started_at: Date;
  last_at: Date;
  watch_ms: number;
  bytes: number;
  position_sec: number | null;
  runtime_sec: number | null;
}

export interface UserAnalysisRows {
  hours: HourRow[];
  sessions: number;
  bytes: number;
  avgCompletionRate: number | null;
  mediaTypes: { mediaType: ActivityMediaType; playCount: number; watchMs: number }[];
  platforms: { platform: ReportPlatform; playCount: number; watchMs: number }[];
  recentPlays: UserPlayRow[];
  siteWatchMs: number;
}

export interface AccountInfo {
  id: string;
  username: string;
  display_name: string;
  role: AccountRole;
  disabled: boolean;
}

export const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

export const SORT_COLUMNS: Record<ReportSort, string> = {
  watchMs: 'watch_ms',
  playCount: 'plays',
  bytes: 'bytes',
};

/**
 * The name columns of a user row: the account's name, or for a deleted account the name its latest event in
 * the window was stored with (one probe of the (user_id, occurred_at) index, only for deleted accounts).
 */
export function nameOf(filter: EventFilter): RawBuilder<unknown> {
  return sql`(u.id IS NULL) AS deleted,
    CASE WHEN u.id IS NOT NULL THEN u.username ELSE (
      SELECT e.username FROM activity_log e
      WHERE e.user_id = per_user.user_id AND ${eventsIn(filter, 'e')}
      ORDER BY e.occurred_at DESC, e.id DESC LIMIT 1
    ) END AS username`;
}

/** Plays and watch per clock hour from the hour rollup (timeRowsIn at level hour). */
export function hourRows(db: Kysely<UserDatabase>, filter: EventFilter) {
  return sql<{ hour: Date; plays: number; watch_ms: number }>`
    SELECT t.at AS hour, sum(t.plays)::bigint AS plays, sum(t.watch_ms)::bigint AS watch_ms
    FROM ${timeRowsIn(filter, 'hour')} t
    GROUP BY 1
  `.execute(db);
}

export interface UserFiguresRow {
  user_id: string;
  username: string;
  deleted: boolean;
  sessions: number;
  plays: number;
  watch_ms: number;
  bytes: number;
  last_at: Date;
}

export function toUserFigures(row: UserFiguresRow): UserFigures {
  return {
    userId: row.user_id,
    username: row.username,
    deleted: row.deleted,
    playCount: num(row.plays),
    watchMs: num(row.watch_ms),
    bytes: num(row.bytes),
    sessions: num(row.sessions),
    lastPlayedAt: new Date(row.last_at),
  };
}
