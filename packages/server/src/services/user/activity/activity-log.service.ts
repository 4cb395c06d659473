import type {
  ActivityBatchRequest,
  ActivityEvent,
  ReportPlatform,
  StoredActivityEvent,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import type { Logger } from '../../../platform/logger.js';
import type { ActivityLogRepository, ActivityRow, NewActivityRow } from './activity-log.repository.js';
import { classifyPlatform } from '../reports/platform.js';
import type { Transactor } from '../user-repositories.js';

export interface ActivityLogServiceDeps {
  transact: Transactor;
  activity: Pick<ActivityLogRepository, 'latest'>;
  clock: Clock;
  logger: Pick<Logger, 'debug'>;
}

export interface ActivityBatchResult {
  /** Events stored by this call. */
  inserted: number;
  /** Events already stored (a retried batch) or repeated within the batch. */
  duplicates: number;
  /** Events of users that do not exist (dropped). */
  unknownUser: number;
}

function toRow(
  event: ActivityEvent,
  username: string,
  receivedAt: Date,
  platform: ReportPlatform,
): NewActivityRow {
  return {
    event_id: event.eventId,
    user_id: event.userId,
    username,
    event_type: event.eventType,
    occurred_at: new Date(event.occurredAt),
    received_at: receivedAt,
    session_id: event.sessionId,
    client_ip: event.clientIp,
    user_agent: event.userAgent,
    media_id: event.mediaId,
    media_type: event.mediaType,
    media_name: event.mediaName,
    series_name: event.seriesName,
    duration_ms: event.durationMs,
    bytes_delta: event.bytesDelta,
    position_sec: event.positionSec,
    runtime_sec: event.runtimeSec,
    node_id: event.nodeId,
    endpoint_id: event.endpointId,
    client: event.client,
    device_name: event.deviceName,
    device_id: event.deviceId,
    play_method: event.playMethod,
    result: event.result,
    reason: event.reason,
    extras: JSON.stringify(event.extras),
    platform,
  };
}

/** The platform of each event, classified once per distinct player of the batch. */
function platformsOf(): (event: ActivityEvent) => ReportPlatform {
  const known = new Map<string, ReportPlatform>();
  return (event) => {
    const key = `${event.client}\u0000${event.deviceName}\u0000${event.userAgent}`;
    let platform = known.get(key);
    if (platform === undefined) {
      platform = classifyPlatform(event);
      known.set(key, platform);
    }
    return platform;
  };
}

/** Stores the playback events the play-agents report (docs/activity-log.md). */
export class ActivityLogService {
  constructor(private readonly deps: ActivityLogServiceDeps) {}

  /**
   * Stores a batch in one transaction: events of unknown users are dropped, events whose id is already
   * stored are skipped, so a play-agent may send a batch again when it did not see the answer.
   */
  async record(batch: ActivityBatchRequest): Promise<ActivityBatchResult> {
    const receivedAt = new Date(this.deps.clock.now());
    const userIds = [...new Set(batch.events.map((event) => event.userId))];
    const platformOf = platformsOf();
    const result = await this.deps.transact(async ({ activity }) => {
      const usernames = await activity.usernames(userIds);
      const rows: NewActivityRow[] = [];
      for (const event of batch.events) {
        const username = usernames.get(event.userId);
        if (username !== undefined) rows.push(toRow(event, username, receivedAt, platformOf(event)));
      }
      const inserted = await activity.insertMany(rows);
      return { inserted, duplicates: rows.length - inserted, unknownUser: batch.events.length - rows.length };
    });
    if (result.unknownUser > 0 || result.duplicates > 0) {
      this.deps.logger.debug(
        { received: batch.events.length, ...result },
        'activity events dropped (unknown users or already stored)',
      );
    }
    return result;
  }

  /** A user's latest events, newest first, as they were reported. */
  async latest(userId: string, limit: number): Promise<StoredActivityEvent[]> {
    const rows = await this.deps.activity.latest(userId, limit);
    return rows.map(fromRow);
  }
}

function fromRow(row: ActivityRow): StoredActivityEvent {
  return {
    eventId: row.event_id,
    userId: row.user_id,
    username: row.username,
    eventType: row.event_type,
    occurredAt: new Date(row.occurred_at).toISOString(),
    sessionId: row.session_id,
    clientIp: row.client_ip,
    userAgent: row.user_agent,
    mediaId: row.media_id,
    mediaType: row.media_type,
    mediaName: row.media_name,
    seriesName: row.series_name,
    durationMs: Number(row.duration_ms),
    bytesDelta: Number(row.bytes_delta),
    positionSec: row.position_sec === null ? null : Number(row.position_sec),
    runtimeSec: row.runtime_sec === null ? null : Number(row.runtime_sec),
    nodeId: row.node_id,
    endpointId: row.endpoint_id,
    client: row.client,
    deviceName: row.device_name,
    deviceId: row.device_id,
    playMethod: row.play_method,
    result: row.result,
    reason: row.reason,
    extras: (typeof row.extras === 'string' ? JSON.parse(row.extras) : row.extras) as Record<string, unknown>,
  };
}
