import { buildEmbyAuthorization, type ClientIdentity } from './emby-authorization.js';
import { trimBaseUrl } from './play-agent-base.js';
import type { ReportKind, ScheduledReport } from './report-schedule.js';
import { secondsToTicks } from './ticks.js';

export const REPORT_PATHS: Record<ReportKind, string> = {
  start: '/Sessions/Playing',
  progress: '/Sessions/Playing/Progress',
  stop: '/Sessions/Playing/Stopped',
};

export interface ReportTarget {
  baseUrl: string;
  /** The item in the client protocol's form (playbackItemId). */
  itemId: string;
  /** The media source id when known (the play-agent's is the item id: one source per file). */
  mediaSourceId?: string;
  playSessionId: string;
  identity: ClientIdentity;
}

/** The body Emby clients post (PascalCase names; PositionTicks = seconds × 10^7). */
export interface ReportBody {
  ItemId: string;
  MediaSourceId?: string;
  PlaySessionId: string;
  PositionTicks: number;
  IsPaused: boolean;
  PlayMethod: 'DirectStream';
  CanSeek: true;
}

export function reportBody(report: ScheduledReport, target: ReportTarget): ReportBody {
  return {
    ItemId: target.itemId,
    ...(target.mediaSourceId ? { MediaSourceId: target.mediaSourceId } : {}),
    PlaySessionId: target.playSessionId,
    PositionTicks: secondsToTicks(report.positionSeconds),
    IsPaused: report.isPaused,
    PlayMethod: 'DirectStream',
    CanSeek: true,
  };
}

/**
 * The request that reports playback to the play-agent, as Emby clients send it: the
 * `X-Emby-Authorization` header and a JSON body. The play-agent usually has another origin than the
 * portal (19090 vs 18080); it answers CORS preflights and allows any origin, since the token travels in
 * the header, never in a cookie. `keepalive` lets the stop report of a closing page arrive.
 */
export function buildReportRequest(
  report: ScheduledReport,
  target: ReportTarget,
): { url: string; init: RequestInit } {
  return {
    url: `${trimBaseUrl(target.baseUrl)}${REPORT_PATHS[report.kind]}`,
    init: {
      method: 'POST',
      headers: {
        'X-Emby-Authorization': buildEmbyAuthorization(target.identity),
        'Content-Type': 'application/json',
      },
      body: JSON.stringify(reportBody(report, target)),
      keepalive: true,
    },
  };
}
