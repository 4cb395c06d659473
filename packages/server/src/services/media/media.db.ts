import type { ColumnType, Generated } from 'kysely';
import type {
  ExternalSubtitle,
  LibraryType,
  MediaInfo,
  MediaItemKind,
  ProbeToolStatus,
  ScanMode,
  ScanPhase,
  ScanState,
  ScanTrigger,
} from '@svc/contracts';
import type { SystemSettingsTable } from '../shared/system-settings.repository.js';

/** jsonb columns are read as parsed values and written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

export interface LibrariesTable {
  id: string;
  name: string;
  type: LibraryType;
  created_at: Date;
  updated_at: Date;
}

export interface LibrarySourcesTable {
  id: string;
  library_id: string;
  position: number;
  node_id: string;
  mount_id: string;
  /** Folder inside the mount, normalised with a leading '/'. */
  path: string;
}

/** A local artwork file of an item (inside the item's source mount). */
export interface StoredImage {
  path: string;
  size: number;
  mtime: string;
}
export type StoredImages = Partial<Record<'poster' | 'fanart' | 'thumb', StoredImage>>;

export interface MediaItemsTable {
  id: string;
  library_id: string;
  source_id: string;
  kind: MediaItemKind;
  /** Series of a season, season of an episode. */
  parent_id: string | null;
  /** Series of a season or an episode. */
  series_id: string | null;
  /** Identity of the item within its source: `file:<path>`, `series:<folder>`, `season:<series key>#<n>`. */
  item_key: string;
  /** File of a movie or episode, folder of a series or season. */
  path: string;
  title: string;
  sort_title: string;
  original_title: string | null;
  year: number | null;
  /** PostgreSQL date, read as 'YYYY-MM-DD'. */
  release_date: string | null;
  overview: string | null;
  tmdb_id: string | null;
  imdb_id: string | null;
  season_number: number | null;
  episode_number: number | null;
  episode_number_end: number | null;
  file_size: number | null;
  file_mtime: Date | null;
  /** Paths, sizes and times of the .nfo, artwork and subtitles the item was built from. */
  sidecar_sig: string | null;
  media_info: ColumnType<MediaInfo | null, string | null, string | null>;
  subtitles: Json<ExternalSubtitle[]>;
  images: Json<StoredImages>;
  provider_poster_path: string | null;
  provider_poster_url: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface MediaScansTable {
  id: string;
  library_id: string;
  mode: ScanMode;
  trigger: ScanTrigger;
  scope_source_id: string | null;
  scope_path: string | null;
  state: ScanState;
  phase: ScanPhase;
  files_seen: Generated<number>;
  files_total: Generated<number>;
  files_skipped: Generated<number>;
  items_added: Generated<number>;
  items_updated: Generated<number>;
  items_removed: Generated<number>;
  probe_tools: Json<ProbeToolStatus[]>;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  heartbeat_at: Date | null;
}

/** A media event (new movie or episode) with every field the outbound webhook templates use. */
export interface MediaEventsTable {
  id: string;
  type: string;
  occurred_at: Date;
  scan_id: string | null;
  library_id: string;
  library_name: string;
  media_id: string;
  media_type: 'movie' | 'series';
  media_title: string;
  media_original_title: string | null;
  media_year: number | null;
  media_release_date: string | null;
  media_tmdb_id: string | null;
  media_imdb_id: string | null;
  media_poster_path: string | null;
  media_poster_url: string | null;
  media_overview: string | null;
  episode_season_number: number | null;
  episode_episode_number: number | null;
  episode_name: string | null;
  item_source_item_id: string;
  item_name: string;
  /** Filled when the scan that recorded the event ends; events without it are not ready for delivery. */
  summary_new_titles: number | null;
  summary_new_items: number | null;
  delivered_at: Date | null;
}

/** What a user (of the user service) did with an item; absent rows mean the defaults. */
export interface UserItemDataTable {
  user_id: string;
  item_id: string;
  played: Generated<boolean>;
  play_count: Generated<number>;
  is_favorite: Generated<boolean>;
  /** 100 ns ticks, as the client protocol counts. */
  position_ticks: Generated<number>;
  last_played_at: Date | null;
  updated_at: Date;
}

export interface MediaDatabase {
  system_settings: SystemSettingsTable;
  libraries: LibrariesTable;
  library_sources: LibrarySourcesTable;
  media_items: MediaItemsTable;
  media_scans: MediaScansTable;
  media_events: MediaEventsTable;
  user_item_data: UserItemDataTable;
}
