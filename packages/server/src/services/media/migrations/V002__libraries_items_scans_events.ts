import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/** Libraries and their sources, media items, scans and the media events of outbound webhooks. */
export const v002LibrariesItemsScansEvents: Migration = {
  name: 'V002__libraries_items_scans_events',
  async up(db) {
    await sql`
      CREATE TABLE libraries (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        type text NOT NULL CHECK (type IN ('movies', 'series', 'mixed')),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE UNIQUE INDEX libraries_name_key ON libraries (lower(name));

      CREATE TABLE library_sources (
        id uuid PRIMARY KEY,
        library_id uuid NOT NULL REFERENCES libraries (id) ON DELETE CASCADE,
        position integer NOT NULL,
        node_id text NOT NULL,
        mount_id text NOT NULL,
        path text NOT NULL,
        UNIQUE (library_id, node_id, mount_id, path)
      );
      CREATE INDEX library_sources_path ON library_sources (path);

      CREATE TABLE media_items (
        id uuid PRIMARY KEY,
        library_id uuid NOT NULL REFERENCES libraries (id) ON DELETE CASCADE,
        source_id uuid NOT NULL REFERENCES library_sources (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('movie', 'series', 'season', 'episode')),
        parent_id uuid REFERENCES media_items (id) ON DELETE CASCADE,
        series_id uuid REFERENCES media_items (id) ON DELETE CASCADE,
        item_key text NOT NULL,
        path text NOT NULL,
        title text NOT NULL,
        sort_title text NOT NULL,
        original_title text,
        year integer,
        release_date date,
        overview text,
        tmdb_id text,
        imdb_id text,
        season_number integer,
        episode_number integer,
        episode_number_end integer,
        file_size bigint,
        file_mtime timestamptz,
        sidecar_sig text,
        media_info jsonb,
        subtitles jsonb NOT NULL DEFAULT '[]',
        images jsonb NOT NULL DEFAULT '{}',
        provider_poster_path text,
        provider_poster_url text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (source_id, item_key)
      );
      CREATE INDEX media_items_library_kind ON media_items (library_id, kind, sort_title);
      CREATE INDEX media_items_parent ON media_items (parent_id, season_number, episode_number);
      CREATE INDEX media_items_series ON media_items (series_id);

      CREATE TABLE media_scans (
        id uuid PRIMARY KEY,
        library_id uuid NOT NULL REFERENCES libraries (id) ON DELETE CASCADE,
        mode text NOT NULL CHECK (mode IN ('full', 'incremental')),
        trigger text NOT NULL CHECK (trigger IN ('manual', 'webhook')),
        scope_source_id uuid REFERENCES library_sources (id) ON DELETE CASCADE,
        scope_path text,
        state text NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
        phase text NOT NULL,
        files_seen integer NOT NULL DEFAULT 0,
        files_total integer NOT NULL DEFAULT 0,
        files_skipped integer NOT NULL DEFAULT 0,
        items_added integer NOT NULL DEFAULT 0,
        items_updated integer NOT NULL DEFAULT 0,
        items_removed integer NOT NULL DEFAULT 0,
        probe_tools jsonb NOT NULL DEFAULT '[]',
        error text,
        created_at timestamptz NOT NULL,
        started_at timestamptz,
        finished_at timestamptz,
        heartbeat_at timestamptz
      );
      CREATE INDEX media_scans_library ON media_scans (library_id, created_at DESC);
      CREATE INDEX media_scans_pending ON media_scans (created_at) WHERE state IN ('queued', 'running');
      -- At most one scan runs per library, whichever instance runs it.
      CREATE UNIQUE INDEX media_scans_one_running ON media_scans (library_id) WHERE state = 'running';

      CREATE TABLE media_events (
        id uuid PRIMARY KEY,
        type text NOT NULL,
        occurred_at timestamptz NOT NULL,
        scan_id uuid,
        library_id uuid NOT NULL,
        library_name text NOT NULL,
        media_id uuid NOT NULL,
        media_type text NOT NULL,
        media_title text NOT NULL,
        media_original_title text,
        media_year integer,
        media_release_date date,
        media_tmdb_id text,
        media_imdb_id text,
        media_poster_path text,
        media_poster_url text,
        media_overview text,
        episode_season_number integer,
        episode_episode_number integer,
        episode_name text,
        item_source_item_id uuid NOT NULL,
        item_name text NOT NULL,
        summary_new_titles integer,
        summary_new_items integer,
        delivered_at timestamptz
      );
      CREATE INDEX media_events_scan ON media_events (scan_id);
      CREATE INDEX media_events_undelivered ON media_events (occurred_at) WHERE delivered_at IS NULL;
    `.execute(db);
  },
};
