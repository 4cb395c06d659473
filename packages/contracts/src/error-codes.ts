import { z } from 'zod';

/**
 * Every machine code an error body of the server may carry (docs/errors.md), including the codes kept in a
 * transfer's or a mount check's `error`. `AppError` takes only these, and the web app's message table is
 * keyed by them, so a code without a translation fails the type check. Kept in alphabetical order.
 */
export const errorCodeSchema = z.enum([
  'ACCOUNT_DISABLED',
  'ADMIN_ONLY_SETTING',
  'ALREADY_EXISTS',
  'BAD_REQUEST',
  'BINARY_NOT_AVAILABLE',
  'CACHE_ENTRY_IN_USE',
  'CHECKSUM_MISMATCH',
  'CONSOLE_NOT_ALLOWED',
  'DIRECTORY_NOT_EMPTY',
  'DRIVE_ACCOUNT_IN_USE',
  'DRIVE_LINK_FAILED',
  'DRIVE_TOKEN_INVALID',
  'EDITION_NOT_DISTRIBUTED',
  'EDITION_NOT_STANDALONE',
  'EDITION_UPGRADE_NOT_ALLOWED',
  'ENDPOINT_NOT_ALLOWED',
  'FFMPEG_UNAVAILABLE',
  'FILE_CHANGED',
  'FILE_TOO_LARGE',
  'FORBIDDEN',
  'INSUFFICIENT_STORAGE',
  'INTERNAL_ERROR',
  'INTERRUPTED',
  'INVALID_CHUNK',
  'INVALID_CREDENTIALS',
  'INVALID_CURRENT_PASSWORD',
  'INVALID_PATH',
  'INVALID_TARGET',
  'IS_A_DIRECTORY',
  'LAST_ADMIN',
  'LEGACY_NODE_NOT_CANDIDATE',
  'LIBRARY_NAME_TAKEN',
  'LICENSE_CODE_USED',
  'LICENSE_EDITION_MISMATCH',
  'LICENSE_EXPIRED',
  'LICENSE_INSTALL_MISMATCH',
  'LICENSE_INVALID',
  'LICENSE_KEY_NOT_CONFIGURED',
  'LICENSE_NOT_ACTIVE',
  'LICENSE_NOT_FOUND',
  'LICENSE_NOT_YET_VALID',
  'LICENSE_QUOTA_FULL',
  'LICENSE_UNAVAILABLE',
  'LISTEN_PORT_TAKEN',
  'LOGIN_LOCKED',
  'METHOD_NOT_ALLOWED',
  'MOUNT_IN_USE',
  'MOUNT_ROOT_FORBIDDEN',
  'NODE_DISABLED',
  'NODE_EMBEDDED',
  'NODE_ID_TAKEN',
  'NODE_LIFECYCLE_FAILED',
  'NODE_MANUAL_ADDRESS',
  'NODE_NOT_ALLOWED',
  'NODE_NOT_INSTALLED',
  'NODE_NOT_PLAY_AGENT',
  'NODE_UNREACHABLE',
  'NOT_A_DIRECTORY',
  'NOT_FOUND',
  'NOT_PLAYABLE',
  'PATH_ESCAPES_MOUNT',
  'PAYLOAD_TOO_LARGE',
  'PROBE_FAILED',
  'PROBE_TIMEOUT',
  'PROTOCOL_NOT_AVAILABLE',
  'PROTOCOL_NOT_SUPPORTED',
  'QUOTA_EXHAUSTED',
  'RANGE_NOT_SATISFIABLE',
  'SCAN_IN_PROGRESS',
  'SELF_ACTION',
  'SERVICE_UNAVAILABLE',
  'SETUP_DONE',
  'SIZE_MISMATCH',
  'STORAGE_NODE_NOT_FOUND',
  'STORAGE_NODE_REQUIRED',
  'STORAGE_UNAVAILABLE',
  'SUBTITLE_BUSY',
  'SUBTITLE_EXTRACT_FAILED',
  'SUBTITLE_FORMAT',
  'SUBTITLE_NOT_TEXT',
  'SUBTITLE_TIMEOUT',
  'SUBTITLE_TOO_LARGE',
  'TRANSFER_FAILED',
  'TRANSFER_FINISHED',
  'TRANSFER_NOT_RETRYABLE',
  'UNAUTHORIZED',
  'UNKNOWN_NODE',
  'UNSUPPORTED_MEDIA_TYPE',
  'UPLOAD_BUSY',
  'UPLOAD_CLOSED',
  'UPLOAD_INCOMPLETE',
  'UPLOAD_NOT_FOUND',
  'UPSTREAM_FAILED',
  'UPSTREAM_UNAVAILABLE',
  'USERNAME_TAKEN',
  'VALIDATION_FAILED',
  'WEB_PLAYBACK_DISABLED',
]);
export type ErrorCode = z.infer<typeof errorCodeSchema>;

/**
 * Codes the web app gives a failure that brought no error body: no answer at all (`NETWORK_ERROR`). They are
 * never sent by the server, but are translated like the server's codes.
 */
export const clientErrorCodeSchema = z.enum(['NETWORK_ERROR']);
export type ClientErrorCode = z.infer<typeof clientErrorCodeSchema>;

/**
 * The code of an answer that was not 2xx and carried no error body of ours (a proxy's page, an empty body):
 * `HTTP_<status>`. It has no translation: the answer's own text or status line is shown.
 */
export type HttpStatusErrorCode = `HTTP_${number}`;

/** Every code a client's failure may carry. */
export type AnyErrorCode = ErrorCode | ClientErrorCode | HttpStatusErrorCode;
