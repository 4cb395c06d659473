import {
  ACTIVE_SESSION_WINDOW_MS,
  ACTIVE_SESSIONS_LIMIT,
  type ActiveSession,
  type DashboardSessionsResponse,
  type UserSetupFacts,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import type { AccountsRepository } from '../accounts/accounts.repository.js';
import type { ActiveSessionRow, ActiveSessionsRepository } from './active-sessions.repository.js';

const iso = (value: Date | string) => new Date(value).toISOString();
const numberOrNull = (value: number | string | null) => (value === null ? null : Number(value));

function toSession({ latest, startedAt, bytes }: ActiveSessionRow): ActiveSession {
  return {
    sessionId: latest.session_id,
    userId: latest.user_id,
    username: latest.username,
    mediaId: latest.media_id,
    mediaName: latest.media_name,
    seriesName: latest.series_name,
    mediaType: latest.media_type,
    client: latest.client,
    deviceName: latest.device_name,
    clientIp: latest.client_ip,
    nodeId: latest.node_id,
    playMethod: latest.play_method,
    positionSec: numberOrNull(latest.position_sec),
    runtimeSec: numberOrNull(latest.runtime_sec),
    startedAt: iso(startedAt),
    lastSeenAt: iso(latest.occurred_at),
    bytes,
  };
}

/**
 * The console dashboard's view of playback going on now, from the activity log (docs/activity-log.md), and
 * this service's part of the first-run checklist.
 */
export class DashboardService {
  constructor(
    private readonly sessions: Pick<ActiveSessionsRepository, 'activeSessions'>,
    private readonly clock: Clock,
    private readonly accounts: Pick<AccountsRepository, 'countEnabledUsers'>,
  ) {}

  /** For the config service's checklist: whether anyone but administrators can sign in yet. */
  async setupFacts(): Promise<UserSetupFacts> {
    return { users: await this.accounts.countEnabledUsers() };
  }

  /**
   * Active sessions: the latest event is a `start` or `progress` at most ACTIVE_SESSION_WINDOW_MS old by the
   * service clock, and the session has no `stop`. Newest first, at most ACTIVE_SESSIONS_LIMIT.
   */
  async activeSessions(): Promise<DashboardSessionsResponse> {
    const since = new Date(this.clock.now() - ACTIVE_SESSION_WINDOW_MS);
    const { rows, total } = await this.sessions.activeSessions(since, ACTIVE_SESSIONS_LIMIT);
    return { sessions: rows.map(toSession), total };
  }
}
