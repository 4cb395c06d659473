import { z } from 'zod';
import { SHANGHAI_TIME_ZONE } from './shanghai-time.js';
import { activityMediaTypeSchema } from './playback-api.js';
import { accountRoleSchema } from './permissions.js';

// The playback report (console, menu permission `reports` or `user`): GET /api/auth/admin/reports/* and
// GET|PUT /api/auth/admin/activity-log/retention. Every figure is aggregated from the activity log when asked
// (docs/report.md). All time points in answers are ISO 8601 with the fixed offset +08:00 (Asia/Shanghai).

/** The report's time zone: buckets, days and the boundaries of today, yesterday and last night. UTC+8, no DST. */
export const REPORT_TIME_ZONE = SHANGHAI_TIME_ZONE;
/** Longest window (to - from) a custom range may span. */
export const REPORT_MAX_SPAN_DAYS = 400;

// --- Query parameters shared by the report endpoints -------------------------------------------------------

/**
 * The eight presets. lastNight = yesterday 21:00 → today 00:00; today = today 00:00 → now; yesterday = the whole
 * of yesterday; last24h/last7d/last30d/last90d = counted back from now; custom = `from`/`to`. Days are
 * Asia/Shanghai calendar days; "now" is the service clock.
 */
export const REPORT_PRESETS = [
  'lastNight',
  'today',
  'yesterday',
  'last24h',
  'last7d',
  'last30d',
  'last90d',
  'custom',
] as const;
export const reportPresetSchema = z.enum(REPORT_PRESETS);
export type ReportPreset = z.infer<typeof reportPresetSchema>;

/**
 * Bucket sizes. Buckets are aligned in Asia/Shanghai: half hours and hours on the clock, days at 00:00, weeks on
 * Monday 00:00, months on the 1st 00:00.
 */
export const REPORT_GRANULARITIES = ['halfHour', 'hour', 'day', 'week', 'month'] as const;
export const reportGranularitySchema = z.enum(REPORT_GRANULARITIES);
export type ReportGranularity = z.infer<typeof reportGranularitySchema>;

/** Sort keys of the rankings: watch duration, play count (start events) or traffic. */
export const reportSortSchema = z.enum(['watchMs', 'playCount', 'bytes']);
export type ReportSort = z.infer<typeof reportSortSchema>;

/**
 * Platforms derived from an event's `client + ' ' + device_name + ' ' + user_agent`: the first pattern that
 * matches (case-insensitive; the same regular expression in SQL and in JavaScript), else `other`.
 */
export const REPORT_PLATFORM_PATTERNS = [
  ['tv', 'tvos|apple ?tv|android ?tv|google ?tv|fire ?tv|bravia|tizen|webos|roku|shield'],
  ['android', 'android'],
  ['ios', 'iphone|ipad|ipod|ios'],
  ['windows', 'windows'],
  ['macos', 'macintosh|mac ?os'],
  ['linux', 'linux|ubuntu|x11'],
] as const;
export const REPORT_PLATFORMS = ['tv', 'android', 'ios', 'windows', 'macos', 'linux', 'other'] as const;
export const reportPlatformSchema = z.enum(REPORT_PLATFORMS);
export type ReportPlatform = z.infer<typeof reportPlatformSchema>;

/** Page sizes of the paged lists (inactive users, watchers of an item, users of a device). */
export const REPORT_PAGE_SIZES = [10, 20, 50, 100] as const;
const reportPageSchema = z.coerce.number().int().min(1).max(1_000_000).default(1);
const reportPageSizeSchema = z.coerce
  .number()
  .int()
  .default(20)
  .refine((size) => (REPORT_PAGE_SIZES as readonly number[]).includes(size), {
    message: `pageSize must be one of ${REPORT_PAGE_SIZES.join(', ')}`,
  });

const isoWithOffset = z.iso.datetime({ offset: true });

/**
 * The window and filters every report endpoint takes. `preset` defaults to last7d; `from`/`to` (ISO 8601 with
 * offset; `from` inclusive, `to` exclusive) are required with `custom` and refused otherwise; from < to and at
 * most REPORT_MAX_SPAN_DAYS apart. `mediaType` and `userId` narrow the events counted.
 */
export const reportWindowQueryShape = {
  preset: reportPresetSchema.default('last7d'),
  from: isoWithOffset.optional(),
  to: isoWithOffset.optional(),
  mediaType: activityMediaTypeSchema.optional(),
  userId: z.uuid().optional(),
};

type WindowFields = { preset: ReportPreset; from?: string | undefined; to?: string | undefined };

/** The cross-field rules of the window (400 VALIDATION_FAILED). */
export function checkReportWindow(value: WindowFields, ctx: z.RefinementCtx): void {
  if (value.preset !== 'custom') {
    if (value.from !== undefined || value.to !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['from'],
        message: 'from/to are only allowed with preset=custom',
      });
    }
    return;
  }
  if (value.from === undefined || value.to === undefined) {
    ctx.addIssue({ code: 'custom', path: ['from'], message: 'preset=custom needs from and to' });
    return;
  }
  const from = Date.parse(value.from);
  const to = Date.parse(value.to);
  if (!(from < to)) ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must be after from' });
  else if (to - from > REPORT_MAX_SPAN_DAYS * 86_400_000) {
    ctx.addIssue({
      code: 'custom',
      path: ['to'],
      message: `the window may span at most ${REPORT_MAX_SPAN_DAYS} days`,
    });
  }
}

/** GET …/reports/overview, …/heatmap, …/devices: the window and filters. */
export const reportWindowQuerySchema = z.strictObject(reportWindowQueryShape).superRefine(checkReportWindow);
export type ReportWindowQuery = z.infer<typeof reportWindowQuerySchema>;

/**
 * GET …/reports/timeline and …/concurrent: the window, filters and a requested granularity. Any string is
 * accepted: the span rule decides the effective one (span < 1 day → halfHour; exactly 1 day → hour; longer →
 * the request, with halfHour turned into hour and a missing or unknown value into hour).
 */
export const reportSeriesQuerySchema = z
  .strictObject({ ...reportWindowQueryShape, granularity: z.string().max(32).optional() })
  .superRefine(checkReportWindow);
export type ReportSeriesQuery = z.infer<typeof reportSeriesQuerySchema>;

/** GET …/reports/top-users and …/top-media: the window, filters, sort key and row count (default 20). */
export const reportRankingQuerySchema = z
  .strictObject({
    ...reportWindowQueryShape,
    sort: reportSortSchema.default('watchMs'),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .superRefine(checkReportWindow);
export type ReportRankingQuery = z.infer<typeof reportRankingQuerySchema>;

/** GET …/reports/inactive-users: accounts without playback in the window (filters apply), paged. */
export const reportInactiveUsersQuerySchema = z
  .strictObject({ ...reportWindowQueryShape, page: reportPageSchema, pageSize: reportPageSizeSchema })
  .superRefine(checkReportWindow);
export type ReportInactiveUsersQuery = z.infer<typeof reportInactiveUsersQuerySchema>;

/** GET …/reports/media-watchers: the users who watched one item (`mediaId`) in the window, paged. */
export const reportMediaWatchersQuerySchema = z
  .strictObject({
    ...reportWindowQueryShape,
    mediaId: z.string().min(1).max(64),
    page: reportPageSchema,
    pageSize: reportPageSizeSchema,
  })
  .superRefine(checkReportWindow);
export type ReportMediaWatchersQuery = z.infer<typeof reportMediaWatchersQuerySchema>;

/**
 * GET …/reports/device-users: the users of a client (`client`, optionally narrowed to one `deviceName` of it)
 * or of a platform (`platform`); exactly one of `client` and `platform`.
 */
export const reportDeviceUsersQuerySchema = z
  .strictObject({
    ...reportWindowQueryShape,
    client: z.string().max(256).optional(),
    deviceName: z.string().max(256).optional(),
    platform: reportPlatformSchema.optional(),
    page: reportPageSchema,
    pageSize: reportPageSizeSchema,
  })
  .superRefine((value, ctx) => {
    checkReportWindow(value, ctx);
    if ((value.client === undefined) === (value.platform === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['client'], message: 'give exactly one of client and platform' });
    }
    if (value.deviceName !== undefined && value.client === undefined) {
      ctx.addIssue({ code: 'custom', path: ['deviceName'], message: 'deviceName needs client' });
    }
  });
export type ReportDeviceUsersQuery = z.infer<typeof reportDeviceUsersQuerySchema>;

/** The ranges of the single-user analysis: the last 30, 90, 180 (half a year) or 365 days up to now. */
export const REPORT_USER_RANGES = ['30d', '90d', '180d', '365d'] as const;
export const reportUserRangeSchema = z.enum(REPORT_USER_RANGES);
export type ReportUserRange = z.infer<typeof reportUserRangeSchema>;

/** GET …/reports/user/:userId?range (404 NOT_FOUND when neither an account nor any event has that id). */
export const reportUserParamsSchema = z.strictObject({ userId: z.uuid() });
export const reportUserQuerySchema = z.strictObject({ range: reportUserRangeSchema.default('30d') });
export type ReportUserQuery = z.infer<typeof reportUserQuerySchema>;

// --- Answers --------------------------------------------------------------------------------------------------

/**
 * The resolved window: [from, to) and the previous period of equal length directly before it,
 * [previousFrom, previousTo = from). Times ISO 8601 with +08:00.
 */
export const reportRangeSchema = z.object({
  preset: reportPresetSchema,
  from: z.string(),
  to: z.string(),
  previousFrom: z.string(),
  previousTo: z.string(),
  spanMs: z.number().int().min(0),
  timeZone: z.literal(REPORT_TIME_ZONE),
  mediaType: activityMediaTypeSchema.nullable(),
  userId: z.string().nullable(),
});
export type ReportRange = z.infer<typeof reportRangeSchema>;

/** One card: the value in the window, in the previous period, and (current - previous) / previous. */
export const reportCardSchema = z.object({
  current: z.number(),
  previous: z.number(),
  /** A ratio (0.25 = +25 %); null when the previous value is 0. */
  changeRate: z.number().nullable(),
});
export type ReportCard = z.infer<typeof reportCardSchema>;

/**
 * GET …/reports/overview: the six cards. activeUsers = distinct users with any event; playCount = `start`
 * events; watchMs = sum of duration_ms; bytes = sum of bytes_delta; avgWatchMsPerUser = round(watchMs /
 * activeUsers), 0 without active users; peakConcurrency = the most sessions playing at one instant, a session
 * playing from its first to its last event in the window (both ends included).
 */
export const reportOverviewResponseSchema = z.object({
  range: reportRangeSchema,
  cards: z.object({
    activeUsers: reportCardSchema,
    playCount: reportCardSchema,
    watchMs: reportCardSchema,
    bytes: reportCardSchema,
    avgWatchMsPerUser: reportCardSchema,
    peakConcurrency: reportCardSchema,
  }),
});
export type ReportOverviewResponse = z.infer<typeof reportOverviewResponseSchema>;

/** One bucket of the timeline; `at` is the bucket's start (the first and last buckets may be cut by the window). */
export const reportTimelineBucketSchema = z.object({
  at: z.string(),
  activeUsers: z.number().int(),
  playCount: z.number().int(),
  watchMs: z.number().int(),
  bytes: z.number().int(),
});
export type ReportTimelineBucket = z.infer<typeof reportTimelineBucketSchema>;

/** GET …/reports/timeline: every bucket from the one holding `from` to the one holding the window's end. */
export const reportTimelineResponseSchema = z.object({
  range: reportRangeSchema,
  /** The effective granularity after the span rule. */
  granularity: reportGranularitySchema,
  buckets: z.array(reportTimelineBucketSchema),
});
export type ReportTimelineResponse = z.infer<typeof reportTimelineResponseSchema>;

/** GET …/reports/concurrent: per bucket the peak of simultaneously playing sessions within it; `peak` overall. */
export const reportConcurrentResponseSchema = z.object({
  range: reportRangeSchema,
  granularity: reportGranularitySchema,
  peak: z.number().int(),
  buckets: z.array(z.object({ at: z.string(), peak: z.number().int() })),
});
export type ReportConcurrentResponse = z.infer<typeof reportConcurrentResponseSchema>;

/**
 * GET …/reports/heatmap: date × hour of day (Asia/Shanghai). `dates` lists every calendar day the window
 * touches ('YYYY-MM-DD'); `playCount[d][h]` and `watchMs[d][h]` belong to dates[d], hour h (0–23).
 */
export const reportHeatmapResponseSchema = z.object({
  range: reportRangeSchema,
  dates: z.array(z.string()),
  playCount: z.array(z.array(z.number().int())),
  watchMs: z.array(z.array(z.number().int())),
});
export type ReportHeatmapResponse = z.infer<typeof reportHeatmapResponseSchema>;

/** The figures every ranking row carries. */
const reportFiguresShape = {
  playCount: z.number().int(),
  watchMs: z.number().int(),
  bytes: z.number().int(),
  /** Distinct play sessions. */
  sessions: z.number().int(),
};

/**
 * A user in a ranking or list. `username` is the account's current name, or for a deleted account
 * (`deleted: true`) the name its latest event in the window was recorded under.
 */
export const reportUserRowSchema = z.object({
  userId: z.string(),
  username: z.string(),
  deleted: z.boolean(),
  ...reportFiguresShape,
  /** The user's latest event in the window. */
  lastPlayedAt: z.string(),
});
export type ReportUserRow = z.infer<typeof reportUserRowSchema>;

/** GET …/reports/top-users: at most `limit` rows, by `sort` descending, then by userId. */
export const reportTopUsersResponseSchema = z.object({
  range: reportRangeSchema,
  sort: reportSortSchema,
  items: z.array(reportUserRowSchema),
});
export type ReportTopUsersResponse = z.infer<typeof reportTopUsersResponseSchema>;

/** An item in the media ranking; names as its latest event in the window recorded them. */
export const reportMediaRowSchema = z.object({
  mediaId: z.string(),
  mediaName: z.string(),
  seriesName: z.string().nullable(),
  mediaType: activityMediaTypeSchema,
  ...reportFiguresShape,
  /** Distinct users who played it. */
  users: z.number().int(),
});
export type ReportMediaRow = z.infer<typeof reportMediaRowSchema>;

/** GET …/reports/top-media: at most `limit` items, by `sort` descending, then by mediaId. */
export const reportTopMediaResponseSchema = z.object({
  range: reportRangeSchema,
  sort: reportSortSchema,
  items: z.array(reportMediaRowSchema),
});
export type ReportTopMediaResponse = z.infer<typeof reportTopMediaResponseSchema>;

/** An account without playback in the window; `lastPlayedAt` is its latest event before the window's end. */
export const reportInactiveUserSchema = z.object({
  userId: z.string(),
  username: z.string(),
  displayName: z.string(),
  role: accountRoleSchema,
  disabled: z.boolean(),
  createdAt: z.string(),
  lastPlayedAt: z.string().nullable(),
});
export type ReportInactiveUser = z.infer<typeof reportInactiveUserSchema>;

/** GET …/reports/inactive-users: ordered by lower(username), then id. */
export const reportInactiveUsersResponseSchema = z.object({
  range: reportRangeSchema,
  items: z.array(reportInactiveUserSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type ReportInactiveUsersResponse = z.infer<typeof reportInactiveUsersResponseSchema>;

/** Figures of one group of the distribution (a client, a device or a platform). */
const reportShareShape = { users: z.number().int(), ...reportFiguresShape };

/**
 * GET …/reports/devices: every client and platform, and the 50 devices (client + device name) with the most
 * watch time; each list by watchMs descending, then by its key.
 */
export const reportDevicesResponseSchema = z.object({
  range: reportRangeSchema,
  clients: z.array(z.object({ client: z.string(), ...reportShareShape })),
  platforms: z.array(z.object({ platform: reportPlatformSchema, ...reportShareShape })),
  devices: z.array(z.object({ client: z.string(), deviceName: z.string(), ...reportShareShape })),
  /** How many distinct devices (client + device name) there are in all. */
  deviceTotal: z.number().int(),
});
export type ReportDevicesResponse = z.infer<typeof reportDevicesResponseSchema>;

/** A paged list of users with their figures (watchers of an item, users of a device), by watchMs descending, then userId. */
export const reportUserPageSchema = z.object({
  items: z.array(reportUserRowSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});

/** GET …/reports/media-watchers: the item (null when it has no event in the window) and its watchers. */
export const reportMediaWatchersResponseSchema = reportUserPageSchema.extend({
  range: reportRangeSchema,
  media: z
    .object({
      mediaId: z.string(),
      mediaName: z.string(),
      seriesName: z.string().nullable(),
      mediaType: activityMediaTypeSchema,
    })
    .nullable(),
});
export type ReportMediaWatchersResponse = z.infer<typeof reportMediaWatchersResponseSchema>;

/** GET …/reports/device-users: the users of a client (and device) or of a platform. */
export const reportDeviceUsersResponseSchema = reportUserPageSchema.extend({
  range: reportRangeSchema,
  client: z.string().nullable(),
  deviceName: z.string().nullable(),
  platform: reportPlatformSchema.nullable(),
});
export type ReportDeviceUsersResponse = z.infer<typeof reportDeviceUsersResponseSchema>;

/** One play (session) of the single-user analysis, with the position of its latest event in the range. */
export const reportUserPlaySchema = z.object({
  sessionId: z.string(),
  mediaId: z.string(),
  mediaName: z.string(),
  seriesName: z.string().nullable(),
  mediaType: activityMediaTypeSchema,
  client: z.string(),
  deviceName: z.string(),
  platform: reportPlatformSchema,
  playMethod: z.string(),
  /** The session's first and latest event in the range. */
  startedAt: z.string(),
  lastAt: z.string(),
  watchMs: z.number().int(),
  bytes: z.number().int(),
  positionSec: z.number().nullable(),
  runtimeSec: z.number().nullable(),
  /** min(1, positionSec / runtimeSec); null without a position or a runtime > 0. */
  progress: z.number().nullable(),
});
export type ReportUserPlay = z.infer<typeof reportUserPlaySchema>;

/**
 * GET …/reports/user/:userId: one user's playback over the last 30, 90, 180 or 365 days (window [now - N days,
 * now)). Day, hour, weekday and month are Asia/Shanghai.
 */
export const reportUserResponseSchema = z.object({
  user: z.object({
    userId: z.string(),
    username: z.string(),
    displayName: z.string().nullable(),
    role: accountRoleSchema.nullable(),
    disabled: z.boolean().nullable(),
    /** The account no longer exists; the name is the one its latest event was recorded under. */
    deleted: z.boolean(),
  }),
  range: z.object({ range: reportUserRangeSchema, from: z.string(), to: z.string() }),
  totals: z.object({
    /** Cumulative watch time in the range. */
    watchMs: z.number().int(),
    playCount: z.number().int(),
    bytes: z.number().int(),
    sessions: z.number().int(),
    /** Calendar days with at least one event. */
    activeDays: z.number().int(),
    /** Mean over the user's sessions of min(1, position/runtime) of each session's latest event; null if none. */
    avgCompletionRate: z.number().nullable(),
    /** The user's watch time / everyone's watch time in the same range; null when nobody watched. */
    siteShare: z.number().nullable(),
  }),
  /** Calendar months the range touches, oldest first ('YYYY-MM'). */
  monthly: z.array(
    z.object({
      month: z.string(),
      watchMs: z.number().int(),
      playCount: z.number().int(),
      activeDays: z.number().int(),
    }),
  ),
  /** Play count (start events) per hour of day, index 0–23. */
  hourlyPlayCount: z.array(z.number().int()).length(24),
  /** Watch time per weekday, index 0 = Monday … 6 = Sunday. */
  weekdayWatchMs: z.array(z.number().int()).length(7),
  /** Media types with any event, by watchMs descending, then type. */
  mediaTypes: z.array(
    z.object({ mediaType: activityMediaTypeSchema, playCount: z.number().int(), watchMs: z.number().int() }),
  ),
  /** Platforms with any event, by watchMs descending, then platform. */
  platforms: z.array(
    z.object({ platform: reportPlatformSchema, playCount: z.number().int(), watchMs: z.number().int() }),
  ),
  /** The latest 50 plays: sessions by their first event in the range, newest first, then sessionId. */
  recentPlays: z.array(reportUserPlaySchema),
});
export type ReportUserResponse = z.infer<typeof reportUserResponseSchema>;

// --- Retention of the activity log ------------------------------------------------------------------------

/** Retention bounds and default (days). The daily `activity-log.cleanup` task deletes older events. */
export const ACTIVITY_RETENTION_MIN_DAYS = 7;
export const ACTIVITY_RETENTION_MAX_DAYS = 3650;
export const ACTIVITY_RETENTION_DEFAULT_DAYS = 90;
/** Shortcuts the console offers. */
export const ACTIVITY_RETENTION_SHORTCUTS = [30, 90, 180, 365, 730] as const;

/** GET|PUT /api/auth/admin/activity-log/retention: the retention in force (authoritative) and its bounds. */
export const activityRetentionResponseSchema = z.object({
  days: z.number().int(),
  min: z.number().int(),
  max: z.number().int(),
  default: z.number().int(),
  shortcuts: z.array(z.number().int()),
});
export type ActivityRetentionResponse = z.infer<typeof activityRetentionResponseSchema>;

/** PUT /api/auth/admin/activity-log/retention: a whole number of days within the bounds (else 400). */
export const setActivityRetentionRequestSchema = z.strictObject({
  days: z.number().int().min(ACTIVITY_RETENTION_MIN_DAYS).max(ACTIVITY_RETENTION_MAX_DAYS),
});
export type SetActivityRetentionRequest = z.infer<typeof setActivityRetentionRequestSchema>;
