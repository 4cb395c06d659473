import { z } from 'zod';

// Outbound webhooks of the media service (docs/webhooks.md): endpoints an administrator configures, the
// template variables their URL, query, headers and body may use, and the delivery records.

export const OUTBOUND_WEBHOOK_METHODS = ['POST', 'PUT', 'PATCH', 'GET'] as const;
export const outboundWebhookMethodSchema = z.enum(OUTBOUND_WEBHOOK_METHODS);
export type OutboundWebhookMethod = z.infer<typeof outboundWebhookMethodSchema>;

export const OUTBOUND_WEBHOOK_CONTENT_TYPES = [
  'application/json',
  'application/x-www-form-urlencoded',
  'text/plain',
] as const;
export const outboundWebhookContentTypeSchema = z.enum(OUTBOUND_WEBHOOK_CONTENT_TYPES);
export type OutboundWebhookContentType = z.infer<typeof outboundWebhookContentTypeSchema>;

/**
 * What answers carry instead of a sensitive value (a query or header value marked sensitive). A PUT that
 * sends it back for the same key keeps the stored value. A sensitive URL is answered as
 * `scheme://host/` + this mask (see maskOutboundWebhookUrl).
 */
export const OUTBOUND_WEBHOOK_MASK = '******';

/**
 * The masked form of a URL marked sensitive: scheme and host (without credentials), then the mask, e.g.
 * `https://hooks.example.com/******`; only the mask when the template has no recognisable origin.
 */
export function maskOutboundWebhookUrl(url: string): string {
  const origin = /^(https?):\/\/(?:[^@/?#]*@)?([^/?#]*)/i.exec(url.trim());
  return origin
    ? `${origin[1]!.toLowerCase()}://${origin[2]}/${OUTBOUND_WEBHOOK_MASK}`
    : OUTBOUND_WEBHOOK_MASK;
}

// --- Template variables ----------------------------------------------------------------------------------

export type OutboundWebhookVariableGroup =
  'event' | 'library' | 'media' | 'episode' | 'item' | 'summary' | 'whole' | 'urlencode';

export interface OutboundWebhookVariable {
  /** What goes between the braces: `media.title`, `urlencode.media.title`. */
  name: string;
  /** Ready to insert: `{{media.title}}`. */
  token: string;
  group: OutboundWebhookVariableGroup;
  /** `number` values are JSON numbers outside JSON strings; `json` is the whole event. */
  type: 'string' | 'number' | 'json';
  /** Absent for some events (movies have no episode, titles may lack a year): empty text, or JSON null. */
  nullable: boolean;
  description: string;
}

const variable = (
  name: string,
  group: OutboundWebhookVariableGroup,
  type: OutboundWebhookVariable['type'],
  nullable: boolean,
  description: string,
): OutboundWebhookVariable => ({ name, token: `{{${name}}}`, group, type, nullable, description });

/** The 24 data variables of a media event. Any of them may also be written with the `urlencode.` prefix. */
export const OUTBOUND_WEBHOOK_DATA_VARIABLES: readonly OutboundWebhookVariable[] = [
  variable('event.id', 'event', 'string', false, 'Event id (a UUID; the same in every retry)'),
  variable('event.type', 'event', 'string', false, 'Event type: media.added (media.test for test sends)'),
  variable('event.occurredAt', 'event', 'string', false, 'When the item was added (ISO 8601, UTC)'),
  variable('library.id', 'library', 'string', false, 'Library id'),
  variable('library.name', 'library', 'string', false, 'Library name (as it was when the event occurred)'),
  variable('media.id', 'media', 'string', false, 'The movie, or for an episode its series: item id'),
  variable('media.type', 'media', 'string', false, 'movie or series'),
  variable('media.title', 'media', 'string', false, 'Title of the movie or series'),
  variable('media.originalTitle', 'media', 'string', true, 'Original title'),
  variable('media.year', 'media', 'number', true, 'Year'),
  variable('media.releaseDate', 'media', 'string', true, 'Release date (YYYY-MM-DD)'),
  variable('media.tmdbId', 'media', 'string', true, 'TMDB id'),
  variable('media.imdbId', 'media', 'string', true, 'IMDb id (tt…)'),
  variable('media.posterPath', 'media', 'string', true, "Poster: the provider's path, else the local file"),
  variable(
    'media.posterUrl',
    'media',
    'string',
    true,
    "Poster URL: the provider's, else the media image route",
  ),
  variable('media.overview', 'media', 'string', true, 'Plot summary'),
  variable('episode.seasonNumber', 'episode', 'number', true, 'Season number (empty for movies)'),
  variable('episode.episodeNumber', 'episode', 'number', true, 'Episode number (empty for movies)'),
  variable('episode.name', 'episode', 'string', true, 'Episode title (empty for movies)'),
  variable('item.sourceItemId', 'item', 'string', false, 'Id of the added movie or episode item'),
  variable('item.name', 'item', 'string', false, 'File name of the added movie or episode'),
  variable('summary.newTitles', 'summary', 'number', false, 'Movies and series with new items in the scan'),
  variable('summary.newItems', 'summary', 'number', false, 'New movies and episodes in the scan'),
  variable('payloadJson', 'whole', 'json', false, 'The whole event as JSON'),
];

/** The prefix that URL-encodes a variable's value (`{{urlencode.media.title}}`). */
export const OUTBOUND_WEBHOOK_URLENCODE_PREFIX = 'urlencode.';

/**
 * The variable selector's 26 entries: the 24 data variables, then two examples of the `urlencode.` prefix
 * (which works on every variable) for the values most often put into URLs.
 */
export const OUTBOUND_WEBHOOK_VARIABLES: readonly OutboundWebhookVariable[] = [
  ...OUTBOUND_WEBHOOK_DATA_VARIABLES,
  variable(
    'urlencode.media.title',
    'urlencode',
    'string',
    false,
    'The title, URL-encoded (the urlencode. prefix works on every variable)',
  ),
  variable(
    'urlencode.payloadJson',
    'urlencode',
    'string',
    false,
    'The whole event as URL-encoded JSON (the urlencode. prefix works on every variable)',
  ),
];

export const outboundWebhookVariableSchema = z.object({
  name: z.string(),
  token: z.string(),
  group: z.enum(['event', 'library', 'media', 'episode', 'item', 'summary', 'whole', 'urlencode']),
  type: z.enum(['string', 'number', 'json']),
  nullable: z.boolean(),
  description: z.string(),
});

/** The body a new endpoint gets when it names none, per Content-Type. */
export const DEFAULT_OUTBOUND_WEBHOOK_BODIES: Readonly<Record<OutboundWebhookContentType, string>> = {
  'application/json': [
    '{',
    '  "title": "New media added",',
    '  "text": "{{media.title}} was added to {{library.name}}",',
    '  "library": "{{library.name}}",',
    '  "media": "{{media.title}}",',
    '  "year": {{media.year}},',
    '  "season": {{episode.seasonNumber}},',
    '  "episode": {{episode.episodeNumber}},',
    '  "episodeName": "{{episode.name}}",',
    '  "posterUrl": "{{media.posterUrl}}",',
    '  "event": {{payloadJson}}',
    '}',
  ].join('\n'),
  'application/x-www-form-urlencoded':
    'title=New+media+added&media={{media.title}}&library={{library.name}}&event={{payloadJson}}',
  'text/plain': 'New media added: {{media.title}} ({{library.name}})',
};

// --- Endpoints -------------------------------------------------------------------------------------------

/** HTTP header names (RFC 9110 tokens). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Headers the delivery sets itself: the table may not name them. */
export const OUTBOUND_WEBHOOK_RESERVED_HEADERS = [
  'content-type',
  'content-length',
  'host',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
] as const;

const keyValueItem = (key: z.ZodString) =>
  z.strictObject({
    key,
    /** A template; for a sensitive item whose value is answered masked, the mask keeps the stored value. */
    value: z.string().max(4096),
    sensitive: z.boolean().default(false),
  });

export const outboundWebhookQueryItemSchema = keyValueItem(z.string().trim().min(1).max(256));
export const outboundWebhookHeaderItemSchema = keyValueItem(
  z
    .string()
    .trim()
    .min(1)
    .max(256)
    .regex(HEADER_NAME, 'must be an HTTP header name')
    .refine(
      (name) => !(OUTBOUND_WEBHOOK_RESERVED_HEADERS as readonly string[]).includes(name.toLowerCase()),
      { message: 'is set by the delivery itself (Content-Type comes from contentType)' },
    ),
);
export type OutboundWebhookKeyValue = z.infer<typeof outboundWebhookQueryItemSchema>;

/** Refuses a key listed twice (header names without regard to case). */
function uniqueKeys(caseInsensitive: boolean) {
  return (items: readonly { key: string }[], ctx: z.RefinementCtx) => {
    const seen = new Set<string>();
    items.forEach((item, index) => {
      const key = caseInsensitive ? item.key.toLowerCase() : item.key;
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [index, 'key'], message: 'key listed twice' });
      seen.add(key);
    });
  };
}

const endpointFields = {
  name: z.string().trim().min(1).max(128),
  method: outboundWebhookMethodSchema,
  /** A template: `{{…}}` variables, `{{urlencode.…}}` to escape values for URLs. http and https only. */
  url: z.string().trim().min(1).max(2048),
  contentType: outboundWebhookContentTypeSchema,
  enabled: z.boolean(),
  /** Answer the URL masked (`scheme://host/******`); a PUT that sends the masked form back keeps it. */
  urlSensitive: z.boolean(),
  /** Deliver to private-network, loopback and link-local addresses too (off by default: SSRF guard). */
  allowPrivateNetwork: z.boolean(),
  /** Appended to the URL's query; values are templates, encoded once by the delivery. */
  query: z.array(outboundWebhookQueryItemSchema).max(50).superRefine(uniqueKeys(false)),
  /** Sent as request headers; values are templates. */
  headers: z.array(outboundWebhookHeaderItemSchema).max(50).superRefine(uniqueKeys(true)),
  /** The body template (not sent with GET). */
  body: z.string().max(65_536),
  /** Libraries whose events are pushed; empty = every library, also ones created later. */
  libraryIds: z
    .array(z.uuid())
    .max(500)
    .transform((ids) => [...new Set(ids.map((id) => id.toLowerCase()))]),
};

/**
 * POST /api/media/outbound-webhooks. Defaults: method POST, contentType application/json, enabled true,
 * urlSensitive false, allowPrivateNetwork false, no query or headers, every library, and the default body
 * of the content type (DEFAULT_OUTBOUND_WEBHOOK_BODIES).
 */
export const createOutboundWebhookRequestSchema = z.strictObject({
  name: endpointFields.name,
  method: endpointFields.method.default('POST'),
  url: endpointFields.url,
  contentType: endpointFields.contentType.default('application/json'),
  enabled: endpointFields.enabled.default(true),
  urlSensitive: endpointFields.urlSensitive.default(false),
  allowPrivateNetwork: endpointFields.allowPrivateNetwork.default(false),
  query: endpointFields.query.default([]),
  headers: endpointFields.headers.default([]),
  body: endpointFields.body.optional(),
  libraryIds: endpointFields.libraryIds.default([]),
});
export type CreateOutboundWebhookRequest = z.input<typeof createOutboundWebhookRequestSchema>;

/**
 * PUT /api/media/outbound-webhooks/:id: the fields to change; an absent field keeps its value. `query` and
 * `headers` replace the whole list; a sensitive item sent with the mask as its value keeps the stored
 * value of the item with the same key. `url` equal to the masked form keeps the stored URL.
 */
export const updateOutboundWebhookRequestSchema = z.strictObject({
  name: endpointFields.name.optional(),
  method: endpointFields.method.optional(),
  url: endpointFields.url.optional(),
  contentType: endpointFields.contentType.optional(),
  enabled: endpointFields.enabled.optional(),
  urlSensitive: endpointFields.urlSensitive.optional(),
  allowPrivateNetwork: endpointFields.allowPrivateNetwork.optional(),
  query: endpointFields.query.optional(),
  headers: endpointFields.headers.optional(),
  body: endpointFields.body.optional(),
  libraryIds: endpointFields.libraryIds.optional(),
});
export type UpdateOutboundWebhookRequest = z.input<typeof updateOutboundWebhookRequestSchema>;

export const outboundWebhookIdParamsSchema = z.strictObject({ id: z.uuid() });

const keyValueAnswer = z.object({ key: z.string(), value: z.string(), sensitive: z.boolean() });

/** An endpoint as answered: sensitive values masked. */
export const outboundWebhookSchema = z.object({
  id: z.string(),
  name: z.string(),
  method: outboundWebhookMethodSchema,
  /** The URL template, or its masked form when urlSensitive. */
  url: z.string(),
  urlSensitive: z.boolean(),
  contentType: outboundWebhookContentTypeSchema,
  enabled: z.boolean(),
  allowPrivateNetwork: z.boolean(),
  query: z.array(keyValueAnswer),
  headers: z.array(keyValueAnswer),
  body: z.string(),
  libraryIds: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type OutboundWebhook = z.infer<typeof outboundWebhookSchema>;

/** GET /api/media/outbound-webhooks: every endpoint (by name), the selector's variables and the defaults. */
export const listOutboundWebhooksResponseSchema = z.object({
  endpoints: z.array(outboundWebhookSchema),
  variables: z.array(outboundWebhookVariableSchema),
  defaultBodies: z.record(outboundWebhookContentTypeSchema, z.string()),
  /** Attempts per event before a delivery is DEAD, and the waits between them (ms). */
  retry: z.object({ maxAttempts: z.number(), delaysMs: z.array(z.number()) }),
});
export type ListOutboundWebhooksResponse = z.infer<typeof listOutboundWebhooksResponseSchema>;

/** GET /api/media/outbound-webhooks/libraries: what an endpoint can subscribe to, by name. */
export const outboundWebhookLibrariesResponseSchema = z.object({
  libraries: z.array(z.object({ id: z.string(), name: z.string(), type: z.string() })),
});
export type OutboundWebhookLibrariesResponse = z.infer<typeof outboundWebhookLibrariesResponseSchema>;

// --- Deliveries ------------------------------------------------------------------------------------------

export const OUTBOUND_WEBHOOK_DELIVERY_STATUSES = ['PENDING', 'RETRYING', 'SUCCEEDED', 'DEAD'] as const;
export const outboundWebhookDeliveryStatusSchema = z.enum(OUTBOUND_WEBHOOK_DELIVERY_STATUSES);
export type OutboundWebhookDeliveryStatus = z.infer<typeof outboundWebhookDeliveryStatusSchema>;

/** One event for one endpoint (or one test send). */
export const outboundWebhookDeliverySchema = z.object({
  id: z.string(),
  /** Null once the endpoint is deleted (its finished deliveries are kept). */
  endpointId: z.string().nullable(),
  /** The endpoint's name (its current one; as it was when the endpoint was deleted). */
  endpointName: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  /** Sent by POST …/:id/test: one attempt, never retried. */
  test: z.boolean(),
  /** PENDING (no attempt yet), RETRYING (failed, another attempt is planned), SUCCEEDED, DEAD. */
  status: outboundWebhookDeliveryStatusSchema,
  attempts: z.number(),
  maxAttempts: z.number(),
  /** HTTP status of the last attempt; null when it got no answer. */
  lastHttpStatus: z.number().nullable(),
  lastError: z.string().nullable(),
  /** The first characters of the last answer's body. */
  responseExcerpt: z.string().nullable(),
  /** Summary of the event for the list: the title (and episode) and the library. */
  title: z.string(),
  libraryName: z.string(),
  createdAt: z.string(),
  lastAttemptAt: z.string().nullable(),
  /** When it SUCCEEDED. */
  deliveredAt: z.string().nullable(),
  /** The next planned attempt of a PENDING or RETRYING delivery. */
  nextAttemptAt: z.string().nullable(),
});
export type OutboundWebhookDelivery = z.infer<typeof outboundWebhookDeliverySchema>;

const emptyAsAbsent = (value: unknown) => (value === '' ? undefined : value);

/** GET /api/media/outbound-webhooks/deliveries?limit=50&endpointId=: the latest first. */
export const outboundWebhookDeliveriesQuerySchema = z.strictObject({
  limit: z.preprocess(emptyAsAbsent, z.coerce.number().int().min(1).max(50).default(50)),
  endpointId: z.preprocess(emptyAsAbsent, z.uuid().optional()),
});

export const outboundWebhookDeliveriesResponseSchema = z.object({
  deliveries: z.array(outboundWebhookDeliverySchema),
});
export type OutboundWebhookDeliveriesResponse = z.infer<typeof outboundWebhookDeliveriesResponseSchema>;

/** POST /api/media/outbound-webhooks/:id/test: the outcome of one send of a sample event. */
export const outboundWebhookTestResponseSchema = z.object({
  ok: z.boolean(),
  httpStatus: z.number().nullable(),
  durationMs: z.number(),
  error: z.string().nullable(),
  responseExcerpt: z.string().nullable(),
  delivery: outboundWebhookDeliverySchema,
});
export type OutboundWebhookTestResponse = z.infer<typeof outboundWebhookTestResponseSchema>;
