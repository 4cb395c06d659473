import { z } from 'zod';
import { imageTypeSchema, libraryTypeSchema, mediaItemKindSchema, mediaStreamSchema } from './media-api.js';

// The user portal's view of the media libraries (media service, any signed-in account; docs/media.md,
// "Portal"). Answers carry no storage node, mount or path: they are meant for every user.

/** An empty query value (`?search=`) counts as absent, as a form sends it. */
const absentIfEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

// --- Libraries -------------------------------------------------------------------------------------------

/** One library as the portal lists it (the same set and counts as the play-agent's Views). */
export const portalLibrarySchema = z.object({
  id: z.string(),
  name: z.string(),
  type: libraryTypeSchema,
  /** Movies and series directly in the library. */
  itemCount: z.number().int(),
  /** Its most recently added movie or series with a local poster (for the library's tile), else null. */
  posterItemId: z.string().nullable(),
});
export type PortalLibrary = z.infer<typeof portalLibrarySchema>;

/** GET /api/media/me/libraries: by name. */
export const portalLibrariesResponseSchema = z.object({ libraries: z.array(portalLibrarySchema) });
export type PortalLibrariesResponse = z.infer<typeof portalLibrariesResponseSchema>;

// --- Items -----------------------------------------------------------------------------------------------

/** The top-level kinds the item list holds. */
export const portalItemTypeSchema = z.enum(['movie', 'series']);
export type PortalItemType = z.infer<typeof portalItemTypeSchema>;

export const PORTAL_ITEMS_MAX_LIMIT = 100;

/**
 * GET /api/media/me/items: movies and series, by name. `search` matches the title or original title
 * without regard to case, and finds a series also by the title of one of its episodes.
 */
export const portalItemsQuerySchema = z.strictObject({
  libraryId: absentIfEmpty(z.uuid()),
  search: absentIfEmpty(z.string().trim().max(128)),
  type: absentIfEmpty(portalItemTypeSchema),
  limit: z.coerce.number().int().min(1).max(PORTAL_ITEMS_MAX_LIMIT).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type PortalItemsQuery = z.infer<typeof portalItemsQuerySchema>;

export const portalItemSchema = z.object({
  id: z.string(),
  libraryId: z.string(),
  name: z.string(),
  type: mediaItemKindSchema,
  year: z.number().int().nullable(),
  overview: z.string().nullable(),
  /** A local poster exists: GET /api/media/me/items/:id/images/poster answers it. */
  hasPoster: z.boolean(),
  /** Seconds, from the file's probe (movies and episodes); null when unknown and for series and seasons. */
  runtime: z.number().nullable(),
  /**
   * The item's id at the play-agent (the compact 32-hex form its item DTOs use as `Id`): play a movie or
   * episode with `GET {play-agent}/Videos/{playbackItemId}/stream?static=true&api_key={access token}`.
   */
  playbackItemId: z.string(),
});
export type PortalItem = z.infer<typeof portalItemSchema>;

export const portalItemsResponseSchema = z.object({
  items: z.array(portalItemSchema),
  /** Matching items before paging. */
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type PortalItemsResponse = z.infer<typeof portalItemsResponseSchema>;

/** Path parameters of the item routes: the id in its dashed or its compact (playbackItemId) form. */
export const portalItemParamsSchema = z.strictObject({ id: z.string().min(1).max(64) });
export const portalItemImageParamsSchema = z.strictObject({
  id: z.string().min(1).max(64),
  type: imageTypeSchema,
});

// --- Item details ----------------------------------------------------------------------------------------

export const portalEpisodeSchema = z.object({
  id: z.string(),
  name: z.string(),
  seasonNumber: z.number().int().nullable(),
  episodeNumber: z.number().int().nullable(),
  /** Last episode of a multi-episode file (S01E01-E02 → 2), else null. */
  episodeNumberEnd: z.number().int().nullable(),
  overview: z.string().nullable(),
  /** Seconds, null when unknown. */
  runtime: z.number().nullable(),
  /** Local artwork the image route answers (an episode usually has a `thumb`). */
  imageTypes: z.array(imageTypeSchema),
  playbackItemId: z.string(),
});
export type PortalEpisode = z.infer<typeof portalEpisodeSchema>;

export const portalSeasonSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** 0 for specials. */
  seasonNumber: z.number().int().nullable(),
  hasPoster: z.boolean(),
  playbackItemId: z.string(),
  /** In episode order. */
  episodes: z.array(portalEpisodeSchema),
});
export type PortalSeason = z.infer<typeof portalSeasonSchema>;

/** A subtitle file next to the video. */
export const portalSubtitleSchema = z.object({
  language: z.string().nullable(),
  format: z.string(),
  forced: z.boolean(),
  default: z.boolean(),
});

/** The file of a movie or episode. */
export const portalFileSchema = z.object({
  /** The container as the play-agent names it for `/Videos/{id}/stream.{container}` (file extension). */
  container: z.string(),
  /** ffprobe's format name (`matroska,webm`), null without a probe. */
  format: z.string().nullable(),
  size: z.number().nullable(),
  durationSeconds: z.number().nullable(),
  bitrate: z.number().nullable(),
  /** Video, audio and embedded subtitle streams (empty without a probe). */
  streams: z.array(mediaStreamSchema),
  subtitles: z.array(portalSubtitleSchema),
});
export type PortalFile = z.infer<typeof portalFileSchema>;

/** GET /api/media/me/items/:id */
export const portalItemDetailSchema = portalItemSchema.extend({
  originalTitle: z.string().nullable(),
  /** YYYY-MM-DD. */
  releaseDate: z.string().nullable(),
  /** Of a season or episode. */
  seriesId: z.string().nullable(),
  seriesName: z.string().nullable(),
  seasonNumber: z.number().int().nullable(),
  episodeNumber: z.number().int().nullable(),
  episodeNumberEnd: z.number().int().nullable(),
  /** Local artwork the image route answers. */
  imageTypes: z.array(imageTypeSchema),
  /** Movies and episodes. */
  file: portalFileSchema.nullable(),
  /** A series: its seasons, each with its episodes; a season: itself with its episodes; else empty. */
  seasons: z.array(portalSeasonSchema),
});
export type PortalItemDetail = z.infer<typeof portalItemDetailSchema>;
