import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/**
 * V008__image_uploads: images uploaded on the system configuration page (the logo), kept in the config
 * database so every instance of a distributed control plane sees them, until saved or deleted by uploads.prune.
 */
export const imageUploadsMigration: Migration = {
  name: 'V008__image_uploads',
  async up(db) {
    await sql`
      CREATE TABLE image_uploads (
        id uuid PRIMARY KEY,
        content_type text NOT NULL
          CHECK (content_type IN ('image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/x-icon')),
        size integer NOT NULL CHECK (size > 0 AND size <= 2097152),
        sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        data bytea NOT NULL,
        uploaded_by text,
        created_at timestamptz NOT NULL
      )`.execute(db);
    await sql`CREATE INDEX image_uploads_created ON image_uploads (created_at)`.execute(db);
  },
};
