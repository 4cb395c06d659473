import type { ErrorCode } from '@svc/contracts';
import type { ColumnType } from 'kysely';
import type { SystemSettingsTable } from '../shared/system-settings.repository.js';

/** jsonb columns are read as parsed values and written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

export interface StorageMountsTable {
  id: string;
  name: string;
  provider: string;
  /** Provider config including secrets; never returned unmasked. */
  config: Json<Record<string, unknown>>;
  created_at: Date;
  updated_at: Date;
}

/** A drive account (docs/drives.md); its secret fields are sealed (enc:v1:…). */
export interface StorageDriveAccountsTable {
  id: string;
  name: string;
  kind: 'drive_a' | 'drive_b';
  config: Json<Record<string, unknown>>;
  created_at: Date;
  updated_at: Date;
}

export type TransferStateColumn = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface StorageTransfersTable {
  id: string;
  kind: 'copy' | 'move';
  state: TransferStateColumn;
  source_mount_id: string;
  source_path: string;
  target_mount_id: string;
  target_path: string;
  overwrite: boolean;
  max_bytes_per_second: number | null;
  bytes_done: number;
  bytes_total: number;
  files_done: number;
  files_total: number;
  error_code: ErrorCode | null;
  error_message: string | null;
  attempt: number;
  /** The temp file being written right now (removed by the restart cleanup after a crash). */
  temp_mount_id: string | null;
  temp_path: string | null;
  created_by: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  updated_at: Date;
}

export type UploadStateColumn = 'open' | 'completing' | 'completed' | 'aborted';

export interface StorageUploadsTable {
  id: string;
  mount_id: string;
  path: string;
  size: number;
  sha256: string | null;
  overwrite: boolean;
  chunk_size: number;
  chunk_count: number;
  /** Where the bytes collect: 'mount:<path of the temp file in the mount>' or 'local:<absolute file>'. */
  staging: string;
  state: UploadStateColumn;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  expires_at: Date;
}

export interface StorageUploadChunksTable {
  upload_id: string;
  chunk_index: number;
}

export interface StorageDatabase {
  system_settings: SystemSettingsTable;
  storage_mounts: StorageMountsTable;
  storage_drive_accounts: StorageDriveAccountsTable;
  storage_transfers: StorageTransfersTable;
  storage_uploads: StorageUploadsTable;
  storage_upload_chunks: StorageUploadChunksTable;
}
