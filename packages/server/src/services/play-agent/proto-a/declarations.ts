import type { HTTPMethods } from 'fastify';
import { z } from 'zod';
import {
  caseInsensitiveObject,
  optional,
  protocolBody,
  protocolQuery,
  queryBoolean,
  queryInteger,
  queryList,
  queryString,
} from './schema.js';

/**
 * One PROTO_A route: its methods and paths (case-insensitive, also below the client prefixes /emby,
 * /mediabrowser and /jellyfin: dialect.ts), who may call it, and the zod schemas of its query and body.
 * Registered by ProtocolRoutes (protocol.ts) as endpoint `proto-a.<Name>`.
 */
export interface ProtoARoute {
  readonly method: HTTPMethods | readonly HTTPMethods[];
  readonly paths: readonly string[];
  /** `anonymous`: open before sign-in; `signed-in`: any accepted token form, else 401. */
  readonly access: 'anonymous' | 'signed-in';
  readonly summary: string;
  readonly query?: z.ZodType;
  /** Absent: the route reads no body (whatever a player posts is ignored). */
  readonly body?: z.ZodType;
}

export interface ProtoADeclaration extends ProtoARoute {
  /** `proto-a.<Name>`: the route's `config.endpoint`. */
  readonly id: string;
}

function declareProtoA<const T extends Record<string, ProtoARoute>>(
  routes: T,
): { readonly [K in keyof T & string]: T[K] & { readonly id: `proto-a.${K}` } } {
  const declared: Record<string, ProtoADeclaration> = {};
  for (const [name, route] of Object.entries(routes)) declared[name] = { ...route, id: `proto-a.${name}` };
  return declared as never;
}

/** `UserId`: the account a request names, which must be the signed-in one. */
const userQuery = protocolQuery({ UserId: queryString });
/** `Fields`: the optional fields of the items answered. */
const itemFields = { UserId: queryString, Fields: queryList };
const limitedItems = { ...itemFields, ParentId: queryString, Limit: queryInteger };

/** Fields of the playback reports (Emby's PlaybackProgressInfo / PlaybackStopInfo); the rest is ignored. */
const reportBody = protocolBody({
  ItemId: optional(z.string().max(256)),
  PositionTicks: optional(z.number()),
  PlaySessionId: optional(z.string().max(1024)),
  IsPaused: optional(z.boolean()),
  PlayMethod: optional(z.string().max(64)),
  Failed: optional(z.boolean()),
});
const reportQuery = protocolQuery({
  ItemId: queryString,
  PositionTicks: queryString,
  PlaySessionId: queryString,
});

/** Emby's UserItemDataDto as a change: only the fields present change (Rating and Likes are not kept). */
const userDataBody = protocolBody({
  IsFavorite: optional(z.boolean()),
  Played: optional(z.boolean()),
  PlayCount: optional(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)),
  PlaybackPositionTicks: optional(z.number().min(0)),
  // null clears the date.
  LastPlayedDate: optional(
    z.string().refine((value) => !Number.isNaN(Date.parse(value)), 'must be an ISO 8601 date'),
  ),
});

/** The sign-in: JSON or a form, or (Emby for Kodi) the query with no body. */
const signInShape = {
  Username: optional(z.string()),
  Pw: optional(z.string()),
  // Older Emby clients send `Password` as well, or only.
  Password: optional(z.string()),
};

/** Every PROTO_A route (docs/play-agent.md "Routes"). */
export const protoA = declareProtoA({
  GetPublicSystemInfo: {
    method: 'GET',
    paths: ['/System/Info/Public'],
    access: 'anonymous',
    summary: 'Server name, id, product and address, before sign-in',
    query: protocolQuery(),
  },
  GetSystemInfo: {
    method: 'GET',
    paths: ['/System/Info'],
    access: 'signed-in',
    summary: 'Server information for a signed-in player',
    query: protocolQuery(),
  },
  PingSystem: {
    method: ['GET', 'POST'],
    paths: ['/System/Ping'],
    access: 'anonymous',
    summary: 'The product name, as plain text',
    query: protocolQuery(),
  },
  GetPublicUsers: {
    method: 'GET',
    paths: ['/Users/Public'],
    access: 'anonymous',
    summary: 'Always an empty list: no account names for strangers',
    query: protocolQuery(),
  },
  AuthenticateUserByName: {
    method: 'POST',
    paths: ['/Users/AuthenticateByName'],
    access: 'anonymous',
    summary: 'Signs in by name and password',
    query: protocolQuery({ Username: queryString, Pw: queryString, Password: queryString }),
    // No body: the sign-in is read from the query (sign-in-request.ts).
    body: caseInsensitiveObject(signInShape).nullish(),
  },
  GetBrandingConfiguration: {
    method: 'GET',
    paths: ['/Branding/Configuration'],
    access: 'anonymous',
    summary: 'No login disclaimer, no custom CSS, no splash screen',
    query: protocolQuery(),
  },
  GetBrandingCss: {
    method: 'GET',
    paths: ['/Branding/Css', '/Branding/Css.css'],
    access: 'anonymous',
    summary: 'Empty custom CSS',
    query: protocolQuery(),
  },
  GetQuickConnectEnabled: {
    method: 'GET',
    paths: ['/QuickConnect/Enabled'],
    access: 'anonymous',
    summary: 'Always false: sign-in by code is not offered',
    query: protocolQuery(),
  },
  PostCapabilities: {
    method: 'POST',
    paths: ['/Sessions/Capabilities', '/Sessions/Capabilities/Full'],
    access: 'signed-in',
    summary: "Accepts a player's capabilities (not kept)",
    query: protocolQuery(),
  },
  Logout: {
    method: 'POST',
    paths: ['/Sessions/Logout'],
    access: 'signed-in',
    summary: "Signs the request's token out",
    query: protocolQuery(),
  },
  GetCurrentUser: {
    method: 'GET',
    paths: ['/Users/Me'],
    access: 'signed-in',
    summary: 'The signed-in account',
    query: protocolQuery(),
  },
  GetUser: {
    method: 'GET',
    paths: ['/Users/:userId'],
    access: 'signed-in',
    summary: 'The signed-in account, by its id',
    query: protocolQuery(),
  },
  GetDisplayPreferences: {
    method: 'GET',
    paths: ['/DisplayPreferences/:id'],
    access: 'signed-in',
    summary: 'Default display preferences (not kept)',
    query: protocolQuery({ UserId: queryString, Client: queryString }),
  },
  GetSessions: {
    method: 'GET',
    paths: ['/Sessions'],
    access: 'signed-in',
    summary: 'Always an empty list: no remote control',
    query: protocolQuery(),
  },
  GetUserViews: {
    method: 'GET',
    paths: ['/Users/:userId/Views', '/UserViews'],
    access: 'signed-in',
    summary: 'The libraries the account may see',
    query: userQuery,
  },
  GetItems: {
    method: 'GET',
    paths: ['/Users/:userId/Items', '/Items'],
    access: 'signed-in',
    summary: 'Items of the catalogue: a folder, a search, filters, sorted and paged',
    query: protocolQuery({
      ...limitedItems,
      StartIndex: queryInteger,
      Recursive: queryBoolean,
      Ids: queryList,
      SearchTerm: queryString,
      IncludeItemTypes: queryList,
      MediaTypes: queryList,
      ExcludeItemTypes: queryList,
      Filters: queryList,
      IsPlayed: queryBoolean,
      IsFavorite: queryBoolean,
      SortBy: queryList,
      SortOrder: queryList,
      Years: queryList,
    }),
  },
  GetLatestItems: {
    method: 'GET',
    paths: ['/Users/:userId/Items/Latest', '/Items/Latest'],
    access: 'signed-in',
    summary: 'Recently added items',
    query: protocolQuery({ ...limitedItems, IncludeItemTypes: queryList }),
  },
  GetResumeItems: {
    method: 'GET',
    paths: ['/Users/:userId/Items/Resume', '/UserItems/Resume'],
    access: 'signed-in',
    summary: 'Items to continue watching',
    query: protocolQuery(limitedItems),
  },
  GetRootFolder: {
    method: 'GET',
    paths: ['/Users/:userId/Items/Root', '/Items/Root'],
    access: 'signed-in',
    summary: "The account's root folder",
    query: userQuery,
  },
  GetItem: {
    method: 'GET',
    paths: ['/Users/:userId/Items/:id', '/Items/:id'],
    access: 'signed-in',
    summary: 'One item (or library) with all its fields',
    query: protocolQuery(itemFields),
  },
  GetSeasons: {
    method: 'GET',
    paths: ['/Shows/:id/Seasons'],
    access: 'signed-in',
    summary: 'Seasons of a series',
    query: protocolQuery(itemFields),
  },
  GetEpisodes: {
    method: 'GET',
    paths: ['/Shows/:id/Episodes'],
    access: 'signed-in',
    summary: 'Episodes of a series or of one season',
    query: protocolQuery({
      ...itemFields,
      SeasonId: queryString,
      Season: queryInteger,
      StartIndex: queryInteger,
      Limit: queryInteger,
    }),
  },
  GetNextUp: {
    method: 'GET',
    paths: ['/Shows/NextUp'],
    access: 'signed-in',
    summary: 'The next episode to watch of each series',
    query: protocolQuery({ ...itemFields, SeriesId: queryString, Limit: queryInteger }),
  },
  GetPlaybackInfo: {
    method: ['GET', 'POST'],
    paths: ['/Items/:id/PlaybackInfo'],
    access: 'signed-in',
    summary: "A file's media source and a play session id (the posted device profile is ignored)",
    query: userQuery,
  },
  ReportPlaybackStart: {
    method: 'POST',
    paths: ['/Sessions/Playing'],
    access: 'signed-in',
    summary: 'Playback started',
    query: reportQuery,
    body: reportBody,
  },
  ReportPlaybackProgress: {
    method: 'POST',
    paths: ['/Sessions/Playing/Progress'],
    access: 'signed-in',
    summary: 'Playback position (saved as the resume position)',
    query: reportQuery,
    body: reportBody,
  },
  ReportPlaybackStopped: {
    method: 'POST',
    paths: ['/Sessions/Playing/Stopped'],
    access: 'signed-in',
    summary: 'Playback stopped (near the end: the item is played)',
    query: reportQuery,
    body: reportBody,
  },
  PingPlaybackSession: {
    method: 'POST',
    paths: ['/Sessions/Playing/Ping'],
    access: 'signed-in',
    summary: 'Keeps a play session alive',
    query: protocolQuery({ PlaySessionId: queryString }),
  },
  MarkPlayed: {
    method: 'POST',
    paths: ['/Users/:userId/PlayedItems/:id', '/UserPlayedItems/:id'],
    access: 'signed-in',
    summary: 'Marks an item played',
    query: userQuery,
  },
  MarkUnplayed: {
    method: 'DELETE',
    paths: ['/Users/:userId/PlayedItems/:id', '/UserPlayedItems/:id'],
    access: 'signed-in',
    summary: 'Marks an item unplayed',
    query: userQuery,
  },
  MarkUnplayedByPost: {
    method: 'POST',
    paths: ['/Users/:userId/PlayedItems/:id/Delete'],
    access: 'signed-in',
    summary: "Marks an item unplayed (Emby's POST form)",
    query: userQuery,
  },
  MarkFavorite: {
    method: 'POST',
    paths: ['/Users/:userId/FavoriteItems/:id', '/UserFavoriteItems/:id'],
    access: 'signed-in',
    summary: 'Marks an item favourite',
    query: userQuery,
  },
  UnmarkFavorite: {
    method: 'DELETE',
    paths: ['/Users/:userId/FavoriteItems/:id', '/UserFavoriteItems/:id'],
    access: 'signed-in',
    summary: 'Removes an item from the favourites',
    query: userQuery,
  },
  UnmarkFavoriteByPost: {
    method: 'POST',
    paths: ['/Users/:userId/FavoriteItems/:id/Delete'],
    access: 'signed-in',
    summary: "Removes an item from the favourites (Emby's POST form)",
    query: userQuery,
  },
  UpdateUserItemData: {
    method: 'POST',
    paths: ['/Users/:userId/Items/:id/UserData', '/UserItems/:id/UserData'],
    access: 'signed-in',
    summary: "Changes an item's played state, plays, position or favourite",
    query: userQuery,
    body: userDataBody,
  },
  GetUserItemData: {
    method: 'GET',
    paths: ['/Users/:userId/Items/:id/UserData', '/UserItems/:id/UserData'],
    access: 'signed-in',
    summary: "An item's played state, plays, position and favourite",
    query: userQuery,
  },
  GetMediaStream: {
    method: ['GET', 'HEAD'],
    paths: ['/Videos/:id/:file', '/Audio/:id/:file'],
    access: 'signed-in',
    summary: "A file's bytes (Range, direct play; the container the player names is not converted)",
    query: protocolQuery(),
  },
  DownloadItem: {
    method: ['GET', 'HEAD'],
    paths: ['/Items/:id/Download'],
    access: 'signed-in',
    summary: "A file's bytes as a download",
    query: protocolQuery(),
  },
  GetSubtitle: {
    method: ['GET', 'HEAD'],
    paths: [
      '/Videos/:id/:sourceId/Subtitles/:index/:file',
      '/Videos/:id/:sourceId/Subtitles/:index/:ticks/:file',
      '/Items/:id/:sourceId/Subtitles/:index/:file',
      '/Items/:id/:sourceId/Subtitles/:index/:ticks/:file',
    ],
    access: 'signed-in',
    summary: 'A text subtitle (embedded or beside the file) as SubRip or WebVTT',
    query: protocolQuery(),
  },
  Preflight: {
    method: 'OPTIONS',
    paths: ['/*'],
    access: 'anonymous',
    summary: 'CORS preflight of web players on another origin (browser-access.ts)',
  },
  GetItemImage: {
    method: ['GET', 'HEAD'],
    paths: ['/Items/:id/Images/:type', '/Items/:id/Images/:type/:index'],
    access: 'anonymous',
    summary: "An item's artwork (open like Emby's; a valid token applies the account's libraries)",
    query: protocolQuery({ tag: queryString }),
  },
});
