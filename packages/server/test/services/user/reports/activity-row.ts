import type { ActivityEventType, ActivityMediaType } from '@svc/contracts';
import type { NewActivityRow } from '../../../../src/services/user/activity/activity-log.repository.js';
import { classifyPlatform } from '../../../../src/services/user/reports/platform.js';

/** What the report tests vary in an activity event; the rest of the row is fixed. */
export interface ActivityRowFields {
  eventId: string;
  t: number;
  userId: string;
  sessionId: string;
  mediaType: ActivityMediaType;
  eventType?: ActivityEventType;
  durationMs?: number;
  bytes?: number;
  mediaId?: string;
  client?: string;
  deviceName?: string;
  userAgent?: string;
}

/** A row for ActivityLogRepository.insertMany, as the activity endpoint would store it. */
export function activityRow(fields: ActivityRowFields): NewActivityRow {
  const deviceName = fields.deviceName ?? 'box';
  const client = fields.client ?? 'Kodi';
  const userAgent = fields.userAgent ?? 'Kodi/20';
  return {
    event_id: fields.eventId,
    user_id: fields.userId,
    username: `user-${fields.userId.slice(0, 8)}`,
    event_type: fields.eventType ?? 'progress',
    occurred_at: new Date(fields.t),
    received_at: new Date(),
    session_id: fields.sessionId,
    client_ip: '198.51.100.1',
    user_agent: userAgent,
    media_id: fields.mediaId ?? `m-${fields.mediaType}`,
    media_type: fields.mediaType,
    media_name: 'Item',
    series_name: null,
    duration_ms: fields.durationMs ?? 1000,
    bytes_delta: fields.bytes ?? 0,
    position_sec: null,
    runtime_sec: null,
    node_id: 'n',
    endpoint_id: null,
    client,
    device_name: deviceName,
    device_id: deviceName,
    play_method: 'DirectPlay',
    result: null,
    reason: null,
    extras: '{}',
    platform: classifyPlatform({ client, deviceName, userAgent }),
  };
}

/** The same row as the log stored it before migration V010 added the `platform` column. */
export function legacyActivityRow(fields: ActivityRowFields): Omit<NewActivityRow, 'platform'> {
  const { platform: _platform, ...row } = activityRow(fields);
  return row;
}
