import { type ActivityEvent, type ActivityMediaType, type ReportPlatform } from '@svc/contracts';
import { classifyPlatform } from '../../../../src/services/user/reports/platform.js';

/*
 * The playback report computed the plain way from a list of events, independently of the SQL and of the
 * service's own time helpers: calendar fields come from Intl in the Asia/Shanghai zone, every figure from loops
 * over the events, peak concurrency by counting the sessions playing at each candidate instant. The endpoints
 * must answer exactly what this computes.
 */

/** An event as the reference sees it: its place in insertion order and its time in ms. */
export interface RefEvent extends ActivityEvent {
  seq: number;
  t: number;
  username: string;
}

export interface RefAccount {
  id: string;
  username: string;
  displayName: string;
  role: 'admin' | 'user';
  disabled: boolean;
  createdAt: string;
}

export interface RefWindow {
  preset: string;
  from: number;
  to: number;
  mediaType?: ActivityMediaType;
  userId?: string;
}

const parts = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Asia/Shanghai',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  weekday: 'short',
  hourCycle: 'h23',
});

interface LocalParts {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
  weekday: string;
}

const partsCache = new Map<number, LocalParts>();

function localParts(ms: number): LocalParts {
  const cached = partsCache.get(ms);
  if (cached) return cached;
  const found: Record<string, string> = {};
  for (const part of parts.formatToParts(new Date(ms))) found[part.type] = part.value;
  if (partsCache.size > 200_000) partsCache.clear();
  partsCache.set(ms, found as unknown as LocalParts);
  return found as unknown as LocalParts;
}

/** The instant of a Shanghai wall-clock time. */
const at = (date: string, time = '00:00:00') => Date.parse(`${date}T${time}.000+08:00`);

export const refDate = (ms: number) => {
  const p = localParts(ms);
  return `${p.year}-${p.month}-${p.day}`;
};
export const refHour = (ms: number) => Number(localParts(ms).hour);
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
export const refWeekday = (ms: number) => WEEKDAYS.indexOf(localParts(ms).weekday);
export const refMonth = (ms: number) => refDate(ms).slice(0, 7);

/** ISO 8601 with +08:00 built from the Shanghai wall clock. */
export function refIso(ms: number): string {
  const p = localParts(ms);
  const millis = String(((ms % 1000) + 1000) % 1000).padStart(3, '0');
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}.${millis}+08:00`;
}

function dayStart(ms: number): number {
  return at(refDate(ms));
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** The windows of the presets, by their definitions in the spec. */
export function refPresetWindow(
  preset: string,
  now: number,
  from?: string,
  to?: string,
): { from: number; to: number } {
  const today = refDate(now);
  const yesterday = addDays(today, -1);
  switch (preset) {
    case 'lastNight':
      return { from: at(yesterday, '21:00:00'), to: at(today) };
    case 'today':
      return { from: at(today), to: now };
    case 'yesterday':
      return { from: at(yesterday), to: at(today) };
    case 'last24h':
      return { from: now - 24 * 3600_000, to: now };
    case 'last7d':
      return { from: now - 7 * 86_400_000, to: now };
    case 'last30d':
      return { from: now - 30 * 86_400_000, to: now };
    case 'last90d':
      return { from: now - 90 * 86_400_000, to: now };
    default:
      return { from: Date.parse(from!), to: Date.parse(to!) };
  }
}

export function refGranularity(spanMs: number, requested: string | undefined): string {
  if (spanMs < 86_400_000) return 'halfHour';
  if (spanMs === 86_400_000) return 'hour';
  if (requested === 'day' || requested === 'week' || requested === 'month' || requested === 'hour')
    return requested;
  return 'hour';
}

/** The start of the bucket holding ms, from the Shanghai wall clock. */
export function refBucket(ms: number, granularity: string): number {
  const p = localParts(ms);
  const date = `${p.year}-${p.month}-${p.day}`;
  switch (granularity) {
    case 'halfHour':
      return at(date, `${p.hour}:${Number(p.minute) < 30 ? '00' : '30'}:00`);
    case 'hour':
      return at(date, `${p.hour}:00:00`);
    case 'day':
      return at(date);
    case 'week':
      return at(addDays(date, -refWeekday(ms)));
    default:
      return at(`${p.year}-${p.month}-01`);
  }
}

function refNextBucket(start: number, granularity: string): number {
  switch (granularity) {
    case 'halfHour':
      return start + 1800_000;
    case 'hour':
      return start + 3600_000;
    case 'day':
      return at(addDays(refDate(start), 1));
    case 'week':
      return at(addDays(refDate(start), 7));
    default: {
      const [year, month] = refMonth(start).split('-').map(Number) as [number, number];
      return at(month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`);
    }
  }
}

function refBuckets(from: number, to: number, granularity: string): number[] {
  const list: number[] = [];
  for (let start = refBucket(from, granularity); start < to; start = refNextBucket(start, granularity))
    list.push(start);
  return list;
}

/**
 * The platform of an event: the user service classifies it when it stores the event (a user-agent parser and
 * app names, not SQL), so the reference uses the same function; the report's SQL only groups by it.
 */
export function refPlatform(
  event: Pick<ActivityEvent, 'client' | 'deviceName' | 'userAgent'>,
): ReportPlatform {
  return classifyPlatform(event);
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sum = (events: readonly RefEvent[], pick: (event: RefEvent) => number) =>
  events.reduce((total, event) => total + pick(event), 0);
const plays = (events: readonly RefEvent[]) => events.filter((event) => event.eventType === 'start').length;
const latest = (events: readonly RefEvent[]) =>
  events.reduce<RefEvent | undefined>(
    (best, event) =>
      !best || event.t > best.t || (event.t === best.t && event.seq > best.seq) ? event : best,
    undefined,
  );

function groupBy<K>(events: readonly RefEvent[], key: (event: RefEvent) => K): Map<K, RefEvent[]> {
  const groups = new Map<K, RefEvent[]>();
  for (const event of events) {
    const k = key(event);
    const list = groups.get(k);
    if (list) list.push(event);
    else groups.set(k, [event]);
  }
  return groups;
}

/** The session intervals [first, last] of a set of events. */
function intervals(events: readonly RefEvent[]): [number, number][] {
  return [...groupBy(events, (event) => event.sessionId).values()].map((list) => [
    Math.min(...list.map((event) => event.t)),
    Math.max(...list.map((event) => event.t)),
  ]);
}

/** The most sessions playing at one instant of [from, to): checked at `from` and at every session start. */
function peakIn(spans: readonly [number, number][], from: number, to: number): number {
  const candidates = [from, ...spans.map(([start]) => start).filter((start) => start >= from && start < to)];
  let best = 0;
  for (const instant of candidates) {
    const playing = spans.filter(([start, end]) => start <= instant && instant <= end).length;
    best = Math.max(best, playing);
  }
  return best;
}

/** The report over one event list and the accounts, for windows and filters. */
export class ReferenceReport {
  constructor(
    readonly events: readonly RefEvent[],
    readonly accounts: readonly RefAccount[],
  ) {}

  private select(from: number, to: number, window: Pick<RefWindow, 'mediaType' | 'userId'>): RefEvent[] {
    return this.events.filter(
      (event) =>
        event.t >= from &&
        event.t < to &&
        (window.mediaType === undefined || event.mediaType === window.mediaType) &&
        (window.userId === undefined || event.userId === window.userId),
    );
  }

  range(window: RefWindow) {
    return {
      preset: window.preset,
      from: refIso(window.from),
      to: refIso(window.to),
      previousFrom: refIso(window.from - (window.to - window.from)),
      previousTo: refIso(window.from),
      spanMs: window.to - window.from,
      timeZone: 'Asia/Shanghai',
      mediaType: window.mediaType ?? null,
      userId: window.userId ?? null,
    };
  }

  overview(window: RefWindow) {
    const figures = (from: number, to: number) => {
      const events = this.select(from, to, window);
      const users = new Set(events.map((event) => event.userId)).size;
      const watchMs = sum(events, (event) => event.durationMs);
      return {
        activeUsers: users,
        playCount: plays(events),
        watchMs,
        bytes: sum(events, (event) => event.bytesDelta),
        avgWatchMsPerUser: users === 0 ? 0 : Math.round(watchMs / users),
        peakConcurrency: peakIn(intervals(events), from, to),
      };
    };
    const current = figures(window.from, window.to);
    const previous = figures(window.from - (window.to - window.from), window.from);
    const card = (key: keyof typeof current) => ({
      current: current[key],
      previous: previous[key],
      changeRate: previous[key] === 0 ? null : (current[key] - previous[key]) / previous[key],
    });
    return {
      range: this.range(window),
      cards: {
        activeUsers: card('activeUsers'),
        playCount: card('playCount'),
        watchMs: card('watchMs'),
        bytes: card('bytes'),
        avgWatchMsPerUser: card('avgWatchMsPerUser'),
        peakConcurrency: card('peakConcurrency'),
      },
    };
  }

  timeline(window: RefWindow, requested: string | undefined) {
    const granularity = refGranularity(window.to - window.from, requested);
    const byBucket = groupBy(this.select(window.from, window.to, window), (event) =>
      refBucket(event.t, granularity),
    );
    return {
      range: this.range(window),
      granularity,
      buckets: refBuckets(window.from, window.to, granularity).map((start) => {
        const inBucket = byBucket.get(start) ?? [];
        return {
          at: refIso(start),
          activeUsers: new Set(inBucket.map((event) => event.userId)).size,
          playCount: plays(inBucket),
          watchMs: sum(inBucket, (event) => event.durationMs),
          bytes: sum(inBucket, (event) => event.bytesDelta),
        };
      }),
    };
  }

  concurrent(window: RefWindow, requested: string | undefined) {
    const granularity = refGranularity(window.to - window.from, requested);
    const spans = intervals(this.select(window.from, window.to, window));
    const buckets = refBuckets(window.from, window.to, granularity).map((start) => ({
      at: refIso(start),
      peak: peakIn(
        spans,
        Math.max(start, window.from),
        Math.min(refNextBucket(start, granularity), window.to),
      ),
    }));
    return {
      range: this.range(window),
      granularity,
      peak: Math.max(0, ...buckets.map((bucket) => bucket.peak)),
      buckets,
    };
  }

  heatmap(window: RefWindow) {
    const dates: string[] = [];
    for (let day = refDate(window.from); at(day) < window.to; day = addDays(day, 1)) dates.push(day);
    const byCell = groupBy(
      this.select(window.from, window.to, window),
      (event) => `${refDate(event.t)} ${refHour(event.t)}`,
    );
    const matrix = (pick: (event: RefEvent) => number) =>
      dates.map((date) =>
        Array.from({ length: 24 }, (_, hour) => sum(byCell.get(`${date} ${hour}`) ?? [], pick)),
      );
    return {
      range: this.range(window),
      dates,
      playCount: matrix((event) => (event.eventType === 'start' ? 1 : 0)),
      watchMs: matrix((event) => event.durationMs),
    };
  }

  private figures(events: readonly RefEvent[]) {
    return {
      playCount: plays(events),
      watchMs: sum(events, (event) => event.durationMs),
      bytes: sum(events, (event) => event.bytesDelta),
      sessions: new Set(events.map((event) => event.sessionId)).size,
    };
  }

  private userRows(events: readonly RefEvent[]) {
    return [...groupBy(events, (event) => event.userId)].map(([userId, list]) => {
      const account = this.accounts.find((candidate) => candidate.id === userId);
      return {
        userId,
        username: account ? account.username : latest(list)!.username,
        deleted: !account,
        ...this.figures(list),
        lastPlayedAt: refIso(Math.max(...list.map((event) => event.t))),
      };
    });
  }

  private static sortKey = { watchMs: 'watchMs', playCount: 'playCount', bytes: 'bytes' } as const;

  topUsers(window: RefWindow, sort: 'watchMs' | 'playCount' | 'bytes', limit: number) {
    const key = ReferenceReport.sortKey[sort];
    const items = this.userRows(this.select(window.from, window.to, window))
      .sort((a, b) => b[key] - a[key] || byText(a.userId, b.userId))
      .slice(0, limit);
    return { range: this.range(window), sort, items };
  }

  topMedia(window: RefWindow, sort: 'watchMs' | 'playCount' | 'bytes', limit: number) {
    const key = ReferenceReport.sortKey[sort];
    const items = [...groupBy(this.select(window.from, window.to, window), (event) => event.mediaId)]
      .map(([mediaId, list]) => {
        const last = latest(list)!;
        return {
          mediaId,
          mediaName: last.mediaName,
          seriesName: last.seriesName,
          mediaType: last.mediaType,
          ...this.figures(list),
          users: new Set(list.map((event) => event.userId)).size,
        };
      })
      .sort((a, b) => b[key] - a[key] || byText(a.mediaId, b.mediaId))
      .slice(0, limit);
    return { range: this.range(window), sort, items };
  }

  inactiveUsers(window: RefWindow, page: number, pageSize: number) {
    const active = new Set(this.select(window.from, window.to, window).map((event) => event.userId));
    const inactive = this.accounts
      .filter(
        (account) => !active.has(account.id) && (window.userId === undefined || account.id === window.userId),
      )
      .sort((a, b) => byText(a.username.toLowerCase(), b.username.toLowerCase()) || byText(a.id, b.id));
    return {
      range: this.range(window),
      items: inactive.slice((page - 1) * pageSize, page * pageSize).map((account) => {
        const before = this.events.filter(
          (event) =>
            event.userId === account.id &&
            event.t < window.to &&
            (window.mediaType === undefined || event.mediaType === window.mediaType),
        );
        return {
          userId: account.id,
          username: account.username,
          displayName: account.displayName,
          role: account.role,
          disabled: account.disabled,
          createdAt: refIso(Date.parse(account.createdAt)),
          lastPlayedAt: before.length === 0 ? null : refIso(Math.max(...before.map((event) => event.t))),
        };
      }),
      total: inactive.length,
      page,
      pageSize,
    };
  }

  devices(window: RefWindow) {
    const events = this.select(window.from, window.to, window);
    const share = (list: readonly RefEvent[]) => ({
      users: new Set(list.map((event) => event.userId)).size,
      ...this.figures(list),
    });
    const clients = [...groupBy(events, (event) => event.client)]
      .map(([client, list]) => ({ client, ...share(list) }))
      .sort((a, b) => b.watchMs - a.watchMs || byText(a.client, b.client));
    const platforms = [...groupBy(events, (event) => refPlatform(event))]
      .map(([platform, list]) => ({ platform, ...share(list) }))
      .sort((a, b) => b.watchMs - a.watchMs || byText(a.platform, b.platform));
    const devices = [...groupBy(events, (event) => JSON.stringify([event.client, event.deviceName]))]
      .map(([key, list]) => {
        const [client, deviceName] = JSON.parse(key) as [string, string];
        return { client, deviceName, ...share(list) };
      })
      .sort(
        (a, b) => b.watchMs - a.watchMs || byText(a.client, b.client) || byText(a.deviceName, b.deviceName),
      );
    return {
      range: this.range(window),
      clients,
      platforms,
      devices: devices.slice(0, 50),
      deviceTotal: devices.length,
    };
  }

  private userPage(events: readonly RefEvent[], page: number, pageSize: number) {
    const rows = this.userRows(events).sort((a, b) => b.watchMs - a.watchMs || byText(a.userId, b.userId));
    return { items: rows.slice((page - 1) * pageSize, page * pageSize), total: rows.length, page, pageSize };
  }

  mediaWatchers(window: RefWindow, mediaId: string, page: number, pageSize: number) {
    const events = this.select(window.from, window.to, window).filter((event) => event.mediaId === mediaId);
    const last = latest(events);
    return {
      range: this.range(window),
      media: last
        ? { mediaId, mediaName: last.mediaName, seriesName: last.seriesName, mediaType: last.mediaType }
        : null,
      ...(last ? this.userPage(events, page, pageSize) : { items: [], total: 0, page, pageSize }),
    };
  }

  deviceUsers(
    window: RefWindow,
    selector: { client?: string; deviceName?: string; platform?: ReportPlatform },
    page: number,
    pageSize: number,
  ) {
    const events = this.select(window.from, window.to, window).filter((event) =>
      selector.platform !== undefined
        ? refPlatform(event) === selector.platform
        : event.client === selector.client &&
          (selector.deviceName === undefined || event.deviceName === selector.deviceName),
    );
    return {
      range: this.range(window),
      client: selector.client ?? null,
      deviceName: selector.deviceName ?? null,
      platform: selector.platform ?? null,
      ...this.userPage(events, page, pageSize),
    };
  }

  /** The single-user analysis over [now − days, now); undefined when the id is nobody's. */
  user(userId: string, range: '30d' | '90d' | '180d' | '365d', now: number) {
    const account = this.accounts.find((candidate) => candidate.id === userId);
    const all = this.events.filter((event) => event.userId === userId);
    if (!account && all.length === 0) return undefined;
    const days = { '30d': 30, '90d': 90, '180d': 180, '365d': 365 }[range];
    const from = now - days * 86_400_000;
    const events = this.select(from, now, { userId });
    const siteWatch = sum(this.select(from, now, {}), (event) => event.durationMs);
    const watchMs = sum(events, (event) => event.durationMs);

    const months: string[] = [];
    for (let month = refMonth(from); month <= refMonth(now - 1);) {
      months.push(month);
      const [year, number] = month.split('-').map(Number) as [number, number];
      month = number === 12 ? `${year + 1}-01` : `${year}-${String(number + 1).padStart(2, '0')}`;
    }
    const sessions = [...groupBy(events, (event) => event.sessionId)];
    const completions = sessions
      .map(([, list]) => latest(list)!)
      .filter((last) => last.positionSec !== null && last.runtimeSec !== null && last.runtimeSec > 0)
      .map((last) => Math.min(1, last.positionSec! / last.runtimeSec!));
    const byWatch =
      <T extends { watchMs: number }>(key: (row: T) => string) =>
      (a: T, b: T) =>
        b.watchMs - a.watchMs || byText(key(a), key(b));

    return {
      user: account
        ? {
            userId,
            username: account.username,
            displayName: account.displayName,
            role: account.role,
            disabled: account.disabled,
            deleted: false,
          }
        : {
            userId,
            username: latest(all)!.username,
            displayName: null,
            role: null,
            disabled: null,
            deleted: true,
          },
      range: { range, from: refIso(from), to: refIso(now) },
      totals: {
        watchMs,
        playCount: plays(events),
        bytes: sum(events, (event) => event.bytesDelta),
        sessions: sessions.length,
        activeDays: new Set(events.map((event) => refDate(event.t))).size,
        avgCompletionRate:
          completions.length === 0 ? null : completions.reduce((a, b) => a + b, 0) / completions.length,
        siteShare: siteWatch === 0 ? null : watchMs / siteWatch,
      },
      monthly: months.map((month) => {
        const inMonth = events.filter((event) => refMonth(event.t) === month);
        return {
          month,
          watchMs: sum(inMonth, (event) => event.durationMs),
          playCount: plays(inMonth),
          activeDays: new Set(inMonth.map((event) => refDate(event.t))).size,
        };
      }),
      hourlyPlayCount: Array.from({ length: 24 }, (_, hour) =>
        plays(events.filter((event) => refHour(event.t) === hour)),
      ),
      weekdayWatchMs: Array.from({ length: 7 }, (_, weekday) =>
        sum(
          events.filter((event) => refWeekday(event.t) === weekday),
          (event) => event.durationMs,
        ),
      ),
      mediaTypes: [...groupBy(events, (event) => event.mediaType)]
        .map(([mediaType, list]) => ({
          mediaType,
          playCount: plays(list),
          watchMs: sum(list, (event) => event.durationMs),
        }))
        .sort(byWatch((row) => row.mediaType)),
      platforms: [...groupBy(events, (event) => refPlatform(event))]
        .map(([platform, list]) => ({
          platform,
          playCount: plays(list),
          watchMs: sum(list, (event) => event.durationMs),
        }))
        .sort(byWatch((row) => row.platform)),
      recentPlays: sessions
        .map(([sessionId, list]) => {
          const last = latest(list)!;
          const first = Math.min(...list.map((event) => event.t));
          return {
            sessionId,
            mediaId: last.mediaId,
            mediaName: last.mediaName,
            seriesName: last.seriesName,
            mediaType: last.mediaType,
            client: last.client,
            deviceName: last.deviceName,
            platform: refPlatform(last),
            playMethod: last.playMethod,
            first,
            startedAt: refIso(first),
            lastAt: refIso(Math.max(...list.map((event) => event.t))),
            watchMs: sum(list, (event) => event.durationMs),
            bytes: sum(list, (event) => event.bytesDelta),
            positionSec: last.positionSec,
            runtimeSec: last.runtimeSec,
            progress:
              last.positionSec !== null && last.runtimeSec !== null && last.runtimeSec > 0
                ? Math.min(1, last.positionSec / last.runtimeSec)
                : null,
          };
        })
        .sort((a, b) => b.first - a.first || byText(a.sessionId, b.sessionId))
        .slice(0, 50)
        .map(({ first: _first, ...play }) => play),
    };
  }
}

export { dayStart as refDayStart };
