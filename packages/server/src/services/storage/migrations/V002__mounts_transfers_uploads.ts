import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/** Mounts, transfers, uploads and their received chunks (docs/storage.md "Tables"). */
export const V002__mounts_transfers_uploads: Migration = {
  name: 'V002__mounts_transfers_uploads',
  async up(db) {
    await sql`
        CREATE TABLE storage_mounts (
          id uuid PRIMARY KEY,
          name text NOT NULL,
          provider text NOT NULL,
          config jsonb NOT NULL,
          created_at timestamptz NOT NULL,
          updated_at timestamptz NOT NULL
        );
        CREATE UNIQUE INDEX storage_mounts_name_unique ON storage_mounts (lower(name));

        CREATE TABLE storage_transfers (
          id uuid PRIMARY KEY,
          kind text NOT NULL CHECK (kind IN ('copy', 'move')),
          state text NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
          source_mount_id uuid NOT NULL,
          source_path text NOT NULL,
          target_mount_id uuid NOT NULL,
          target_path text NOT NULL,
          overwrite boolean NOT NULL,
          max_bytes_per_second bigint,
          bytes_done bigint NOT NULL DEFAULT 0,
          bytes_total bigint NOT NULL DEFAULT 0,
          files_done integer NOT NULL DEFAULT 0,
          files_total integer NOT NULL DEFAULT 0,
          error_code text,
          error_message text,
          attempt integer NOT NULL DEFAULT 1,
          temp_mount_id uuid,
          temp_path text,
          created_by text,
          created_at timestamptz NOT NULL,
          started_at timestamptz,
          finished_at timestamptz,
          updated_at timestamptz NOT NULL
        );
        CREATE INDEX storage_transfers_created ON storage_transfers (created_at DESC, id);
        CREATE INDEX storage_transfers_active ON storage_transfers (state) WHERE state IN ('queued', 'running');

        CREATE TABLE storage_uploads (
          id uuid PRIMARY KEY,
          mount_id uuid NOT NULL REFERENCES storage_mounts (id) ON DELETE CASCADE,
          path text NOT NULL,
          size bigint NOT NULL CHECK (size >= 0),
          sha256 text,
          overwrite boolean NOT NULL,
          chunk_size integer NOT NULL CHECK (chunk_size > 0),
          chunk_count integer NOT NULL CHECK (chunk_count >= 0),
          staging text NOT NULL,
          state text NOT NULL CHECK (state IN ('open', 'completing', 'completed', 'aborted')),
          created_by text,
          created_at timestamptz NOT NULL,
          updated_at timestamptz NOT NULL,
          expires_at timestamptz NOT NULL
        );
        CREATE INDEX storage_uploads_expiry ON storage_uploads (expires_at) WHERE state IN ('open', 'completing');

        CREATE TABLE storage_upload_chunks (
          upload_id uuid NOT NULL REFERENCES storage_uploads (id) ON DELETE CASCADE,
          chunk_index integer NOT NULL CHECK (chunk_index >= 0),
          PRIMARY KEY (upload_id, chunk_index)
        );
    `.execute(db);
  },
};
