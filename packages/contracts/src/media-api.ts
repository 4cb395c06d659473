import { z } from 'zod';
import { probeChapterSchema, probeStreamSchema } from './storage-api.js';

// --- Paths -----------------------------------------------------------------------------------------------

/**
 * Normalises a path inside a storage mount: '/' separators, a leading '/', no empty, '.' or '..' segments,
 * no trailing '/' (except the mount root itself). Returns null for a path that cannot name a place inside a
 * mount (NUL, backslashes, '..', too long).
 */
export function normaliseMediaPath(raw: string): string | null {
  const value = raw.trim();
  if (value.length === 0 || value.length > 1024) return null;
  if (value.includes('\0') || value.includes('\\')) return null;
  const segments: string[] = [];
  for (const segment of value.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') return null;
    segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

/** A folder or file inside a storage mount, normalised by normaliseMediaPath. */
export const mediaPathSchema = z
  .string()
  .max(1024)
  .refine((value) => normaliseMediaPath(value) !== null, {
    message: 'must be a path inside the mount: no "..", backslashes or NUL',
  })
  .transform((value) => normaliseMediaPath(value) ?? '/');

export const storageNodeIdSchema = z
  .string()
  .regex(/^node-[A-Za-z0-9_-]{3,60}$/, 'a node id such as node-local-storage');
export const mountIdSchema = z.string().trim().min(1).max(128);

// --- Libraries -------------------------------------------------------------------------------------------

export const LIBRARY_TYPES = ['movies', 'series', 'mixed'] as const;
export const libraryTypeSchema = z.enum(LIBRARY_TYPES);
export type LibraryType = z.infer<typeof libraryTypeSchema>;

export const librarySourceInputSchema = z.strictObject({
  nodeId: storageNodeIdSchema,
  mountId: mountIdSchema,
  path: mediaPathSchema,
});
export type LibrarySourceInput = z.infer<typeof librarySourceInputSchema>;

const sourcesSchema = z
  .array(librarySourceInputSchema)
  .min(1)
  .max(50)
  .superRefine((sources, ctx) => {
    const seen = new Set<string>();
    sources.forEach((source, index) => {
      const key = `${source.nodeId}\u0000${source.mountId}\u0000${source.path}`;
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [index], message: 'source listed twice' });
      seen.add(key);
    });
  });

export const libraryNameSchema = z.string().trim().min(1).max(128);

/** POST /api/media/libraries */
export const createLibraryRequestSchema = z.strictObject({
  name: libraryNameSchema,
  type: libraryTypeSchema,
  sources: sourcesSchema,
  /**
   * Queue a full scan of the new library at once (the default, as Emby's `refreshLibrary`); the answer's
   * `lastScan` is that queued scan. false leaves it unscanned until a scan is started.
   */
  scan: z.boolean().default(true),
});
export type CreateLibraryRequest = z.infer<typeof createLibraryRequestSchema>;

/** PATCH /api/media/libraries/:id (the type cannot change: create another library instead) */
export const updateLibraryRequestSchema = z
  .strictObject({ name: libraryNameSchema.optional(), sources: sourcesSchema.optional() })
  .refine((value) => value.name !== undefined || value.sources !== undefined, {
    message: 'nothing to change',
  });
export type UpdateLibraryRequest = z.infer<typeof updateLibraryRequestSchema>;

export const libraryIdParamsSchema = z.strictObject({ id: z.uuid() });

export const librarySourceSchema = z.object({
  id: z.string(),
  nodeId: z.string(),
  mountId: z.string(),
  path: z.string(),
});
export type LibrarySource = z.infer<typeof librarySourceSchema>;

/** Whether a storage node can probe media files (ffprobe present). */
export const probeToolStatusSchema = z.object({
  nodeId: z.string(),
  /** The node answered. */
  reachable: z.boolean(),
  available: z.boolean(),
  version: z.string().nullable(),
});
export type ProbeToolStatus = z.infer<typeof probeToolStatusSchema>;

// --- Scans -----------------------------------------------------------------------------------------------

export const scanModeSchema = z.enum(['full', 'incremental']);
export type ScanMode = z.infer<typeof scanModeSchema>;
export const scanTriggerSchema = z.enum(['manual', 'webhook']);
export type ScanTrigger = z.infer<typeof scanTriggerSchema>;
export const scanStateSchema = z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']);
export type ScanState = z.infer<typeof scanStateSchema>;
export const scanPhaseSchema = z.enum(['queued', 'walking', 'processing', 'removing', 'done']);
export type ScanPhase = z.infer<typeof scanPhaseSchema>;

/** POST /api/media/libraries/:id/scan */
export const startScanRequestSchema = z.strictObject({ mode: scanModeSchema });
export type StartScanRequest = z.infer<typeof startScanRequestSchema>;

export const scanStatusSchema = z.object({
  id: z.string(),
  libraryId: z.string(),
  mode: scanModeSchema,
  trigger: scanTriggerSchema,
  /** A webhook task scans one subtree of one source; a manual scan the whole library (null). */
  scope: z.object({ sourceId: z.string(), path: z.string() }).nullable(),
  state: scanStateSchema,
  phase: scanPhaseSchema,
  /** Video files looked at so far, of filesTotal found by the walk. */
  filesSeen: z.number().int(),
  filesTotal: z.number().int(),
  /** Video files that could not be recognised (no title, no episode number). */
  filesSkipped: z.number().int(),
  itemsAdded: z.number().int(),
  itemsUpdated: z.number().int(),
  itemsRemoved: z.number().int(),
  /** The probe tool of every storage node the scan read from, as found when it started. */
  probeTools: z.array(probeToolStatusSchema),
  error: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type ScanStatus = z.infer<typeof scanStatusSchema>;

/** GET /api/media/libraries/:id/scan: the running scan, else the newest one (null before the first). */
export const libraryScanResponseSchema = z.object({
  scan: scanStatusSchema.nullable(),
  /** Scans and webhook tasks of this library waiting or running. */
  pendingTasks: z.number().int(),
});
export type LibraryScanResponse = z.infer<typeof libraryScanResponseSchema>;

export const libraryCountsSchema = z.object({
  movies: z.number().int(),
  series: z.number().int(),
  seasons: z.number().int(),
  episodes: z.number().int(),
});

export const librarySchema = z.object({
  id: z.string(),
  name: z.string(),
  type: libraryTypeSchema,
  sources: z.array(librarySourceSchema),
  counts: libraryCountsSchema,
  lastScan: scanStatusSchema.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Library = z.infer<typeof librarySchema>;

/** GET /api/media/libraries/:id: the library and the probe tool of each of its storage nodes right now. */
export const libraryDetailSchema = librarySchema.extend({ probeTools: z.array(probeToolStatusSchema) });
export type LibraryDetail = z.infer<typeof libraryDetailSchema>;

export const listLibrariesResponseSchema = z.object({ libraries: z.array(librarySchema) });
export type ListLibrariesResponse = z.infer<typeof listLibrariesResponseSchema>;

// --- Items -----------------------------------------------------------------------------------------------

export const mediaItemKindSchema = z.enum(['movie', 'series', 'season', 'episode']);
export type MediaItemKind = z.infer<typeof mediaItemKindSchema>;

export const itemSortSchema = z.enum(['title', 'year', 'releaseDate', 'addedAt']);
export type ItemSort = z.infer<typeof itemSortSchema>;

/**
 * GET /api/media/libraries/:id/items. Without kind and parentId: the top level (movies and series).
 * search matches title and original title, without regard to case.
 */
export const listItemsQuerySchema = z.strictObject({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
  search: z.string().trim().max(128).optional(),
  kind: mediaItemKindSchema.optional(),
  parentId: z.uuid().optional(),
  sort: itemSortSchema.default('title'),
  order: z.enum(['asc', 'desc']).default('asc'),
});
export type ListItemsQuery = z.infer<typeof listItemsQuerySchema>;

export const IMAGE_TYPES = ['poster', 'fanart', 'thumb'] as const;
export const imageTypeSchema = z.enum(IMAGE_TYPES);
export type ImageType = z.infer<typeof imageTypeSchema>;

export const mediaImageSchema = z.object({
  /** The media service's image route for local artwork, the provider's image URL otherwise. */
  url: z.string(),
  source: z.enum(['local', 'provider']),
});
export const mediaImagesSchema = z.object({
  poster: mediaImageSchema.optional(),
  fanart: mediaImageSchema.optional(),
  thumb: mediaImageSchema.optional(),
});
export type MediaImages = z.infer<typeof mediaImagesSchema>;

export const mediaItemSummarySchema = z.object({
  id: z.string(),
  libraryId: z.string(),
  kind: mediaItemKindSchema,
  parentId: z.string().nullable(),
  seriesId: z.string().nullable(),
  title: z.string(),
  originalTitle: z.string().nullable(),
  year: z.number().int().nullable(),
  releaseDate: z.string().nullable(),
  seasonNumber: z.number().int().nullable(),
  episodeNumber: z.number().int().nullable(),
  /** Last episode of a multi-episode file (S01E01-E02 → 2). */
  episodeNumberEnd: z.number().int().nullable(),
  tmdbId: z.string().nullable(),
  imdbId: z.string().nullable(),
  images: mediaImagesSchema,
  addedAt: z.string(),
  updatedAt: z.string(),
});
export type MediaItemSummary = z.infer<typeof mediaItemSummarySchema>;

export const listItemsResponseSchema = z.object({
  items: z.array(mediaItemSummarySchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type ListItemsResponse = z.infer<typeof listItemsResponseSchema>;

/** One stream of a media file, as the storage node's probe reports it. */
export const mediaStreamSchema = probeStreamSchema;
export type MediaStream = z.infer<typeof mediaStreamSchema>;
export const mediaChapterSchema = probeChapterSchema;
export type MediaChapter = z.infer<typeof mediaChapterSchema>;

/** Technical metadata from the storage node's probe. */
export const mediaInfoSchema = z.object({
  container: z.string(),
  /** Null when the file states no duration. */
  durationSeconds: z.number().nullable(),
  bitrate: z.number().nullable(),
  size: z.number().nullable(),
  streams: z.array(mediaStreamSchema),
  /** Absent when the file has none or was probed before chapters were kept. */
  chapters: z.array(mediaChapterSchema).optional(),
});
export type MediaInfo = z.infer<typeof mediaInfoSchema>;

/** A subtitle file next to the video (`<name>.<lang>.srt|ass|ssa|vtt`). */
export const externalSubtitleSchema = z.object({
  path: z.string(),
  format: z.string(),
  language: z.string().nullable(),
  forced: z.boolean(),
  default: z.boolean(),
  hearingImpaired: z.boolean(),
});
export type ExternalSubtitle = z.infer<typeof externalSubtitleSchema>;

export const mediaFileSchema = z.object({
  nodeId: z.string(),
  mountId: z.string(),
  path: z.string(),
  size: z.number().nullable(),
  mtime: z.string().nullable(),
});

export const mediaItemDetailSchema = mediaItemSummarySchema.extend({
  library: z.object({ id: z.string(), name: z.string() }),
  overview: z.string().nullable(),
  /** Folder of a series or season, file of a movie or episode (inside the mount). */
  path: z.string(),
  file: mediaFileSchema.nullable(),
  mediaInfo: mediaInfoSchema.nullable(),
  subtitles: z.array(externalSubtitleSchema),
  /** Seasons of a series, episodes of a season. */
  children: z.array(mediaItemSummarySchema),
  /** The series and the season the item belongs to, outermost first (empty for movies and series). */
  ancestors: z.array(z.object({ id: z.string(), kind: mediaItemKindSchema, title: z.string() })),
});
export type MediaItemDetail = z.infer<typeof mediaItemDetailSchema>;

export const itemIdParamsSchema = z.strictObject({ id: z.uuid() });
export const itemImageParamsSchema = z.strictObject({ id: z.uuid(), type: imageTypeSchema });

// --- Metadata provider -----------------------------------------------------------------------------------

/** GET /api/media/settings/metadata-provider (the API key is never returned, only masked). */
export const metadataProviderSettingsSchema = z.object({
  enabled: z.boolean(),
  baseUrl: z.string().nullable(),
  apiKeySet: z.boolean(),
  apiKeyMasked: z.string().nullable(),
  language: z.string().nullable(),
  imageBaseUrl: z.string(),
});
export type MetadataProviderSettings = z.infer<typeof metadataProviderSettingsSchema>;

/** PUT /api/media/settings/metadata-provider (omit apiKey to keep the stored one). */
export const updateMetadataProviderRequestSchema = z.strictObject({
  enabled: z.boolean(),
  baseUrl: z.url({ protocol: /^https?$/ }).max(512),
  apiKey: z.string().trim().min(1).max(512).optional(),
  language: z
    .string()
    .regex(/^[a-z]{2}(-[A-Z]{2})?$/, 'a language such as en-US')
    .nullable()
    .optional(),
  imageBaseUrl: z
    .url({ protocol: /^https?$/ })
    .max(512)
    .optional(),
});
export type UpdateMetadataProviderRequest = z.infer<typeof updateMetadataProviderRequestSchema>;

// --- Inbound webhook -------------------------------------------------------------------------------------

/** GET /api/media/webhook/token: the token masked (prefix and last 4), never in plain text. */
export const webhookTokenStatusSchema = z.object({
  exists: z.boolean(),
  masked: z.string().nullable(),
  createdAt: z.string().nullable(),
});
export type WebhookTokenStatus = z.infer<typeof webhookTokenStatusSchema>;

/** POST /api/media/webhook/token/regenerate: the only answer that carries the plain token. */
export const webhookTokenRegeneratedSchema = z.object({
  token: z.string(),
  masked: z.string(),
  createdAt: z.string(),
});
export type WebhookTokenRegenerated = z.infer<typeof webhookTokenRegeneratedSchema>;

/**
 * POST|GET /api/webhook/:token: `data` are paths of files or series folders as the file store sees them;
 * `replace_path` is a prefix pattern ('*' = one path segment, e.g. '/mnt*' + '/') removed from each.
 */
export const inboundWebhookRequestSchema = z.object({
  data: z.array(z.string().trim().min(1).max(4096)).min(1).max(1000),
  replace_path: z.string().trim().min(1).max(1024).optional(),
});
export type InboundWebhookRequest = z.infer<typeof inboundWebhookRequestSchema>;

/** POST|GET /api/webhook/{token}: the token is the path's last segment (the service checks it itself). */
export const inboundWebhookParamsSchema = z.object({ token: z.string() });

/**
 * The query form of the request (GET, or a POST without a JSON body): `data` repeated or one JSON-encoded
 * array. Any shape passes here: the service checks the token first and only then the request.
 */
export const inboundWebhookQuerySchema = z.looseObject({
  data: z.union([z.string(), z.array(z.string())]).optional(),
  replace_path: z.union([z.string(), z.array(z.string())]).optional(),
});

/**
 * The JSON body of a POST: the shape of inboundWebhookRequestSchema, checked by the service after the token
 * (so a caller without the token learns nothing about the request format); any JSON passes here.
 */
export const inboundWebhookBodySchema = z
  .unknown()
  .describe('{ "data": ["/path", ...], "replace_path": "/mnt*" } (see inboundWebhookRequestSchema)');

export const webhookTaskSchema = z.object({
  /** The scan that carries out the task (see GET /api/media/libraries/:id/scan). */
  id: z.string(),
  libraryId: z.string(),
  libraryName: z.string(),
  sourceId: z.string(),
  /** The subtree to scrape, inside the source's mount. */
  path: z.string(),
  /** An identical task was already waiting; it was not queued twice. */
  deduplicated: z.boolean(),
});
export type WebhookTask = z.infer<typeof webhookTaskSchema>;

export const inboundWebhookResponseSchema = z.object({
  tasks: z.array(webhookTaskSchema),
  /** Paths that queued nothing: no library source contains them, or they name no media. */
  ignored: z.array(z.object({ path: z.string(), reason: z.string() })),
});
export type InboundWebhookResponse = z.infer<typeof inboundWebhookResponseSchema>;
