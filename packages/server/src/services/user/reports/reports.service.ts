import type {
  MediaViewerCountResponse,
  ReportCard,
  ReportConcurrentResponse,
  ReportDevicesResponse,
  ReportDeviceUsersQuery,
  ReportDeviceUsersResponse,
  ReportHeatmapResponse,
  ReportInactiveUsersQuery,
  ReportInactiveUsersResponse,
  ReportMediaWatchersQuery,
  ReportMediaWatchersResponse,
  ReportOverviewResponse,
  ReportRankingQuery,
  ReportSeriesQuery,
  ReportTimelineResponse,
  ReportTopMediaResponse,
  ReportTopUsersResponse,
  ReportUserQuery,
  ReportUserResponse,
  ReportUserRow,
  ReportWindowQuery,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { notFound } from '../../../platform/http/errors.js';
import {
  DAY_MS,
  bucketStart,
  bucketStarts,
  effectiveGranularity,
  formatShanghai,
  nextBucket,
  rangeOf,
  resolveWindow,
  shanghaiDate,
  shanghaiHour,
  shanghaiMonth,
  shanghaiWeekday,
  startOfDay,
  type ReportWindow,
} from './report-time.js';
import type { DistributionRow, EventFilter, ReportRepositories, UserFigures } from './reports.repository.js';

/** Devices listed by the devices endpoint (the busiest by watch time); `deviceTotal` counts all. */
export const REPORT_DEVICE_LIMIT = 50;
/** Plays listed by the single-user analysis. */
export const REPORT_RECENT_PLAYS = 50;
const USER_RANGE_DAYS = { '30d': 30, '90d': 90, '180d': 180, '365d': 365 } as const;

/** Byte-order comparison of strings (the order of COLLATE "C" for the ids and names we sort). */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function card(current: number, previous: number): ReportCard {
  return { current, previous, changeRate: previous === 0 ? null : (current - previous) / previous };
}

function filterOf(window: ReportWindow): EventFilter {
  return {
    from: new Date(window.from),
    to: new Date(window.to),
    mediaType: window.mediaType,
    userId: window.userId,
  };
}

function userRow(figures: UserFigures): ReportUserRow {
  return {
    userId: figures.userId,
    username: figures.username,
    deleted: figures.deleted,
    playCount: figures.playCount,
    watchMs: figures.watchMs,
    bytes: figures.bytes,
    sessions: figures.sessions,
    lastPlayedAt: formatShanghai(figures.lastPlayedAt.getTime()),
  };
}

const shareOf = (row: DistributionRow) => ({
  users: row.users,
  sessions: row.sessions,
  playCount: row.playCount,
  watchMs: row.watchMs,
  bytes: row.bytes,
});

/** The playback report: windows, buckets and cards on top of the report queries (docs/report.md). */
export class ReportsService {
  constructor(
    private readonly reports: ReportRepositories,
    private readonly clock: Clock,
  ) {}

  private window(query: ReportWindowQuery): ReportWindow {
    return resolveWindow(query, this.clock.now());
  }

  async overview(query: ReportWindowQuery): Promise<ReportOverviewResponse> {
    const window = this.window(query);
    const { current, previous } = await this.reports.timeSeries.summary(
      filterOf(window),
      new Date(window.previousFrom),
    );
    const average = (watchMs: number, users: number) => (users === 0 ? 0 : Math.round(watchMs / users));
    return {
      range: rangeOf(window),
      cards: {
        activeUsers: card(current.activeUsers, previous.activeUsers),
        playCount: card(current.playCount, previous.playCount),
        watchMs: card(current.watchMs, previous.watchMs),
        bytes: card(current.bytes, previous.bytes),
        avgWatchMsPerUser: card(
          average(current.watchMs, current.activeUsers),
          average(previous.watchMs, previous.activeUsers),
        ),
        peakConcurrency: card(current.peakConcurrency, previous.peakConcurrency),
      },
    };
  }

  async timeline(query: ReportSeriesQuery): Promise<ReportTimelineResponse> {
    const window = this.window(query);
    const granularity = effectiveGranularity(window.to - window.from, query.granularity);
    const rows = await this.reports.timeSeries.timeline(filterOf(window), granularity);
    const byBucket = new Map(rows.map((row) => [row.bucket.getTime(), row]));
    return {
      range: rangeOf(window),
      granularity,
      buckets: bucketStarts(window.from, window.to, granularity).map((start) => {
        const row = byBucket.get(start);
        return {
          at: formatShanghai(start),
          activeUsers: row?.activeUsers ?? 0,
          playCount: row?.playCount ?? 0,
          watchMs: row?.watchMs ?? 0,
          bytes: row?.bytes ?? 0,
        };
      }),
    };
  }

  /**
   * Peak concurrency per bucket: the sessions still playing when the bucket starts (started earlier, not yet
   * ended: carried over from the buckets before) or the highest running count at a start inside the bucket.
   */
  async concurrent(query: ReportSeriesQuery): Promise<ReportConcurrentResponse> {
    const window = this.window(query);
    const granularity = effectiveGranularity(window.to - window.from, query.granularity);
    const rows = await this.reports.timeSeries.concurrency(filterOf(window), granularity);
    const byBucket = new Map(rows.map((row) => [row.bucket.getTime(), row]));
    let playing = 0;
    let overall = 0;
    const buckets = bucketStarts(window.from, window.to, granularity).map((start) => {
      const row = byBucket.get(start);
      const peak = Math.max(playing, row?.peak ?? 0);
      playing += (row?.starts ?? 0) - (row?.ends ?? 0);
      overall = Math.max(overall, peak);
      return { at: formatShanghai(start), peak };
    });
    return { range: rangeOf(window), granularity, peak: overall, buckets };
  }

  async heatmap(query: ReportWindowQuery): Promise<ReportHeatmapResponse> {
    const window = this.window(query);
    const rows = await this.reports.timeSeries.hours(filterOf(window));
    const firstDay = startOfDay(window.from);
    const dates: string[] = [];
    for (let day = firstDay; day < window.to; day += DAY_MS) dates.push(shanghaiDate(day));
    const playCount = dates.map(() => new Array<number>(24).fill(0));
    const watchMs = dates.map(() => new Array<number>(24).fill(0));
    for (const row of rows) {
      const at = row.hour.getTime();
      const day = Math.round((startOfDay(at) - firstDay) / DAY_MS);
      const hour = shanghaiHour(at);
      playCount[day]![hour]! += row.playCount;
      watchMs[day]![hour]! += row.watchMs;
    }
    return { range: rangeOf(window), dates, playCount, watchMs };
  }

  async topUsers(query: ReportRankingQuery): Promise<ReportTopUsersResponse> {
    const window = this.window(query);
    const rows = await this.reports.rankings.topUsers(filterOf(window), query.sort, query.limit);
    return { range: rangeOf(window), sort: query.sort, items: rows.map(userRow) };
  }

  async topMedia(query: ReportRankingQuery): Promise<ReportTopMediaResponse> {
    const window = this.window(query);
    const items = await this.reports.rankings.topMedia(filterOf(window), query.sort, query.limit);
    return { range: rangeOf(window), sort: query.sort, items };
  }

  async inactiveUsers(query: ReportInactiveUsersQuery): Promise<ReportInactiveUsersResponse> {
    const window = this.window(query);
    const { rows, total } = await this.reports.rankings.inactiveUsers(
      filterOf(window),
      (query.page - 1) * query.pageSize,
      query.pageSize,
    );
    return {
      range: rangeOf(window),
      items: rows.map((row) => ({
        userId: row.id,
        username: row.username,
        displayName: row.display_name,
        role: row.role,
        disabled: row.disabled,
        createdAt: formatShanghai(row.created_at.getTime()),
        lastPlayedAt: row.last_played_at === null ? null : formatShanghai(row.last_played_at.getTime()),
      })),
      total,
      page: query.page,
      pageSize: query.pageSize,
    };
  }

  async devices(query: ReportWindowQuery): Promise<ReportDevicesResponse> {
    const window = this.window(query);
    const rows = await this.reports.devices.distribution(filterOf(window));
    const byWatch =
      <T extends { watchMs: number }>(key: (row: T) => string) =>
      (a: T, b: T) =>
        b.watchMs - a.watchMs || compareText(key(a), key(b));
    const clients = rows
      .filter((row) => row.kind === 'client')
      .map((row) => ({ client: row.client!, ...shareOf(row) }))
      .sort(byWatch((row) => row.client));
    const platforms = rows
      .filter((row) => row.kind === 'platform')
      .map((row) => ({ platform: row.platform!, ...shareOf(row) }))
      .sort(byWatch((row) => row.platform));
    const devices = rows
      .filter((row) => row.kind === 'device')
      .map((row) => ({ client: row.client!, deviceName: row.deviceName!, ...shareOf(row) }))
      .sort(
        (a, b) =>
          b.watchMs - a.watchMs || compareText(a.client, b.client) || compareText(a.deviceName, b.deviceName),
      );
    return {
      range: rangeOf(window),
      clients,
      platforms,
      devices: devices.slice(0, REPORT_DEVICE_LIMIT),
      deviceTotal: devices.length,
    };
  }

  async mediaWatchers(query: ReportMediaWatchersQuery): Promise<ReportMediaWatchersResponse> {
    const window = this.window(query);
    const { media, rows, total } = await this.reports.rankings.mediaWatchers(
      filterOf(window),
      query.mediaId,
      (query.page - 1) * query.pageSize,
      query.pageSize,
    );
    return {
      range: rangeOf(window),
      media,
      items: rows.map(userRow),
      total,
      page: query.page,
      pageSize: query.pageSize,
    };
  }

  async deviceUsers(query: ReportDeviceUsersQuery): Promise<ReportDeviceUsersResponse> {
    const window = this.window(query);
    const selector =
      query.platform !== undefined
        ? { platform: query.platform }
        : { client: query.client!, deviceName: query.deviceName };
    const { rows, total } = await this.reports.devices.deviceUsers(
      filterOf(window),
      selector,
      (query.page - 1) * query.pageSize,
      query.pageSize,
    );
    return {
      range: rangeOf(window),
      client: query.client ?? null,
      deviceName: query.deviceName ?? null,
      platform: query.platform ?? null,
      items: rows.map(userRow),
      total,
      page: query.page,
      pageSize: query.pageSize,
    };
  }

  /** Distinct accounts that played the item in the 24 hours up to now. */
  async mediaViewerCount(mediaId: string): Promise<MediaViewerCountResponse> {
    const to = this.clock.now();
    const from = to - DAY_MS;
    const viewers = await this.reports.rankings.viewerCount(mediaId, {
      from: new Date(from),
      to: new Date(to + 1),
    });
    return { mediaId, viewers, since: new Date(from).toISOString() };
  }

  /** The single-user analysis over the last 30, 90, 180 or 365 days; 404 when the id is nobody's. */
  async user(userId: string, query: ReportUserQuery): Promise<ReportUserResponse> {
    const found = await this.reports.users.findUser(userId);
    if (!found) throw notFound('user');
    const to = this.clock.now();
    const from = to - USER_RANGE_DAYS[query.range] * DAY_MS;
    const rows = await this.reports.users.userAnalysis(userId, new Date(from), new Date(to));

    let watchMs = 0;
    let playCount = 0;
    const days = new Set<string>();
    const months = new Map<string, { watchMs: number; playCount: number; days: Set<string> }>();
    for (let month = from; month < to; month = nextMonth(month)) {
      months.set(shanghaiMonth(month), { watchMs: 0, playCount: 0, days: new Set() });
    }
    const hourlyPlayCount = new Array<number>(24).fill(0);
    const weekdayWatchMs = new Array<number>(7).fill(0);
    for (const row of rows.hours) {
      const at = row.hour.getTime();
      watchMs += row.watchMs;
      playCount += row.playCount;
      const date = shanghaiDate(at);
      days.add(date);
      const month = months.get(shanghaiMonth(at));
      if (month) {
        month.watchMs += row.watchMs;
        month.playCount += row.playCount;
        month.days.add(date);
      }
      hourlyPlayCount[shanghaiHour(at)]! += row.playCount;
      weekdayWatchMs[shanghaiWeekday(at)]! += row.watchMs;
    }
    const byWatch =
      <T extends { watchMs: number }>(key: (row: T) => string) =>
      (a: T, b: T) =>
        b.watchMs - a.watchMs || compareText(key(a), key(b));

    return {
      user: found.account
        ? {
            userId,
            username: found.account.username,
            displayName: found.account.display_name,
            role: found.account.role,
            disabled: found.account.disabled,
            deleted: false,
          }
        : {
            userId,
            username: found.eventName!,
            displayName: null,
            role: null,
            disabled: null,
            deleted: true,
          },
      range: { range: query.range, from: formatShanghai(from), to: formatShanghai(to) },
      totals: {
        watchMs,
        playCount,
        bytes: rows.bytes,
        sessions: rows.sessions,
        activeDays: days.size,
        avgCompletionRate: rows.avgCompletionRate,
        siteShare: rows.siteWatchMs === 0 ? null : watchMs / rows.siteWatchMs,
      },
      monthly: [...months].map(([month, figures]) => ({
        month,
        watchMs: figures.watchMs,
        playCount: figures.playCount,
        activeDays: figures.days.size,
      })),
      hourlyPlayCount,
      weekdayWatchMs,
      mediaTypes: [...rows.mediaTypes].sort(byWatch((row) => row.mediaType)),
      platforms: [...rows.platforms].sort(byWatch((row) => row.platform)),
      recentPlays: rows.recentPlays.slice(0, REPORT_RECENT_PLAYS).map((play) => ({
        sessionId: play.session_id,
        mediaId: play.media_id,
        mediaName: play.media_name,
        seriesName: play.series_name,
        mediaType: play.media_type,
        client: play.client,
        deviceName: play.device_name,
        platform: play.platform,
        playMethod: play.play_method,
        startedAt: formatShanghai(play.started_at.getTime()),
        lastAt: formatShanghai(play.last_at.getTime()),
        watchMs: play.watch_ms,
        bytes: play.bytes,
        positionSec: play.position_sec,
        runtimeSec: play.runtime_sec,
        progress:
          play.position_sec !== null && play.runtime_sec !== null && play.runtime_sec > 0
            ? Math.min(1, play.position_sec / play.runtime_sec)
            : null,
      })),
    };
  }
}

/** The first instant of the Shanghai month after the one holding `ms`. */
const nextMonth = (ms: number): number => nextBucket(bucketStart(ms, 'month'), 'month');
