import type { SystemSettingsTable } from '../shared/system-settings.repository.js';
import type { ColumnType, Generated } from 'kysely';
import type {
  AccountRole,
  ActivityEventType,
  ActivityMediaType,
  DelegablePermission,
  DriveAPlayMode,
  LibraryAccessMode,
  NodeAccessEntry,
  NodeAccessMode,
  QuotaPeriod,
  QuotaUnit,
  ReportPlatform,
  RouteKind,
  TokenKind,
} from '@svc/contracts';

/** jsonb columns are read as parsed values and written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

export interface UsersTable {
  id: string;
  username: string;
  display_name: string;
  role: AccountRole;
  disabled: boolean;
  password_hash: string;
  permissions: Json<DelegablePermission[]>;
  web_playback: boolean;
  drive_a_play_mode: DriveAPlayMode;
  created_at: Date;
  updated_at: Date;
  /** Last successful sign-in of a playback client (null: never). */
  last_login_at: Date | null;
}

export interface AuthTokensTable {
  id: string;
  user_id: string;
  kind: TokenKind;
  /** SHA-256 of the token, lower-case hex; the token itself is never stored. */
  token_hash: string;
  created_at: Date;
  expires_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  /** Playback tokens: the client, device and play-agent node they were issued to (null for other kinds). */
  client: string | null;
  device_name: string | null;
  device_id: string | null;
  client_version: string | null;
  node_id: string | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  at: Date;
  actor_id: string | null;
  actor_name: string;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: Json<Record<string, unknown>>;
  client_ip: string | null;
}

export interface UserNodeAccessTable {
  user_id: string;
  mode: NodeAccessMode;
  entries: Json<NodeAccessEntry[]>;
  updated_at: Date;
}

export interface UserLibraryAccessTable {
  user_id: string;
  mode: LibraryAccessMode;
  library_ids: Json<string[]>;
  updated_at: Date;
}

export interface UserQuotasTable {
  user_id: string;
  scope: 'total' | 'route';
  /** '' for the total quota. */
  target_kind: RouteKind | '';
  /** '' for the total quota. */
  target_id: string;
  enabled: boolean;
  amount: number;
  unit: QuotaUnit;
  period: QuotaPeriod;
}

/** Bytes served per user, scope ('total', 'node:<id>', 'endpoint:<id>') and Asia/Shanghai calendar day. */
export interface UserTrafficDailyTable {
  user_id: string;
  scope_key: string;
  /** 'YYYY-MM-DD' */
  day: string;
  bytes: number;
}

/** One playback event reported by a play-agent (docs/activity-log.md); no foreign key to users. */
export interface ActivityLogTable {
  id: Generated<number>;
  event_id: string;
  user_id: string;
  /** The user name when the event was received (kept after the account is deleted). */
  username: string;
  event_type: ActivityEventType;
  occurred_at: Date;
  received_at: Date;
  session_id: string;
  client_ip: string;
  user_agent: string;
  media_id: string;
  media_type: ActivityMediaType;
  media_name: string;
  series_name: string | null;
  duration_ms: number;
  bytes_delta: number;
  position_sec: number | null;
  runtime_sec: number | null;
  node_id: string;
  endpoint_id: string | null;
  client: string;
  device_name: string;
  device_id: string;
  play_method: string;
  result: string | null;
  reason: string | null;
  extras: Json<Record<string, unknown>>;
  /**
   * The report's platform, classified when the event was stored (reports/platform.ts); null for events stored
   * before migration V010, whose platform is the SQL rule activity_platform() of V007.
   */
  platform: ReportPlatform | null;
}

export interface UserDatabase {
  system_settings: SystemSettingsTable;
  users: UsersTable;
  auth_tokens: AuthTokensTable;
  audit_log: AuditLogTable;
  user_node_access: UserNodeAccessTable;
  user_library_access: UserLibraryAccessTable;
  user_quotas: UserQuotasTable;
  user_traffic_daily: UserTrafficDailyTable;
  activity_log: ActivityLogTable;
}
