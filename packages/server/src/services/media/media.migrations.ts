import { sql } from 'kysely';
import type { Migration } from '../../platform/db/index.js';
import { systemSettingsMigration } from '../shared/system-settings.migration.js';

export const mediaMigrations: readonly Migration[] = [
  systemSettingsMigration('V001__system_settings'),
  {
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
  },
  {
    name: 'V003__user_item_data',
    async up(db) {
      await sql`
        -- What each user did with an item (the play-agent's users live in the user service: no foreign key).
        CREATE TABLE user_item_data (
          user_id uuid NOT NULL,
          item_id uuid NOT NULL REFERENCES media_items (id) ON DELETE CASCADE,
          played boolean NOT NULL DEFAULT false,
          play_count integer NOT NULL DEFAULT 0,
          is_favorite boolean NOT NULL DEFAULT false,
          position_ticks bigint NOT NULL DEFAULT 0,
          last_played_at timestamptz,
          updated_at timestamptz NOT NULL,
          PRIMARY KEY (user_id, item_id)
        );
        -- Deleting items (a rescan, a removed source) cascades through this index.
        CREATE INDEX user_item_data_item ON user_item_data (item_id);
        -- Latest: newest items of a library.
        CREATE INDEX media_items_library_created ON media_items (library_id, kind, created_at);
      `.execute(db);
    },
  },
  {
    name: 'V004__outbound_webhooks',
    async up(db) {
      await sql`
        -- Outbound webhook endpoints (docs/webhooks.md). Sensitive values are stored plain: they are sent.
        CREATE TABLE outbound_webhook_endpoints (
          id uuid PRIMARY KEY,
          name text NOT NULL,
          method text NOT NULL CHECK (method IN ('POST', 'PUT', 'PATCH', 'GET')),
          url text NOT NULL,
          content_type text NOT NULL,
          enabled boolean NOT NULL,
          url_sensitive boolean NOT NULL,
          allow_private_network boolean NOT NULL,
          query jsonb NOT NULL DEFAULT '[]',
          headers jsonb NOT NULL DEFAULT '[]',
          body text NOT NULL,
          library_ids jsonb NOT NULL DEFAULT '[]',
          deliver_since timestamptz NOT NULL,
          created_at timestamptz NOT NULL,
          updated_at timestamptz NOT NULL
        );

        -- One event for one endpoint, or one test send. Deleting an endpoint deletes its unsent deliveries
        -- first; the finished ones keep the endpoint's name.
        CREATE TABLE outbound_webhook_deliveries (
          id uuid PRIMARY KEY,
          endpoint_id uuid REFERENCES outbound_webhook_endpoints (id) ON DELETE SET NULL,
          endpoint_name text NOT NULL,
          event_id uuid NOT NULL,
          event_type text NOT NULL,
          test boolean NOT NULL DEFAULT false,
          payload jsonb NOT NULL,
          status text NOT NULL CHECK (status IN ('PENDING', 'RETRYING', 'SUCCEEDED', 'DEAD')),
          attempts integer NOT NULL DEFAULT 0,
          max_attempts integer NOT NULL,
          next_attempt_at timestamptz,
          last_http_status integer,
          last_error text,
          response_excerpt text,
          created_at timestamptz NOT NULL,
          last_attempt_at timestamptz,
          delivered_at timestamptz
        );
        -- An event reaches an endpoint once, however often the fan-out runs.
        CREATE UNIQUE INDEX outbound_webhook_deliveries_event
          ON outbound_webhook_deliveries (endpoint_id, event_id) WHERE NOT test;
        CREATE INDEX outbound_webhook_deliveries_due
          ON outbound_webhook_deliveries (next_attempt_at) WHERE status IN ('PENDING', 'RETRYING');
        CREATE INDEX outbound_webhook_deliveries_created ON outbound_webhook_deliveries (created_at DESC, id DESC);
        CREATE INDEX outbound_webhook_deliveries_endpoint
          ON outbound_webhook_deliveries (endpoint_id, created_at DESC);
      `.execute(db);
    },
  },
];
