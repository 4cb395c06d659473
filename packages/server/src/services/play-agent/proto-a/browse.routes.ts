import type { PlaybackItem, PlaybackItemKind, PlaybackItemsQuery, PlaybackSortField } from '@svc/contracts';
import { forbidden, notFound } from '../../../platform/http/errors.js';
import { itemDto, viewDto, type ItemDtoOptions } from './dto.js';
import { fromProtocolId, toProtocolId } from './ids.js';
import { mediaSourceDto } from './media-source.js';
import { protoA } from './declarations.js';
import type { PlayerRequest, ProtocolRoutes } from './protocol.js';
import type { ProtocolQuery } from './query.js';

const KIND_BY_TYPE: Record<string, PlaybackItemKind[]> = {
  movie: ['movie'],
  series: ['series'],
  season: ['season'],
  episode: ['episode'],
  video: ['movie', 'episode'],
};

const SORT_BY: Record<string, PlaybackSortField> = {
  sortname: 'name',
  name: 'name',
  datecreated: 'dateCreated',
  premieredate: 'premiereDate',
  productionyear: 'year',
  dateplayed: 'datePlayed',
  indexnumber: 'index',
  parentindexnumber: 'parentIndex',
  airedepisodeorder: 'index',
  random: 'random',
  runtime: 'runtime',
};

/** Item types named in a query; types we have none of (BoxSet, Audio...) match nothing. */
function kindsOf(types: string[]): { kinds: PlaybackItemKind[]; onlyUnknown: boolean } {
  const kinds = new Set<PlaybackItemKind>();
  for (const type of types) for (const kind of KIND_BY_TYPE[type.toLowerCase()] ?? []) kinds.add(kind);
  return { kinds: [...kinds], onlyUnknown: types.length > 0 && kinds.size === 0 };
}

export function dtoOptions(
  routes: ProtocolRoutes,
  player: PlayerRequest,
  query: ProtocolQuery,
  all = false,
): ItemDtoOptions {
  const server = routes.deps.server();
  return {
    fields: new Set(query.list('Fields').map((field) => field.toLowerCase())),
    all,
    mediaSources: (item) => [mediaSourceDto(item, { server, token: player.player.token })],
  };
}

/** The user named in the path or query must be the signed-in one. */
export function assertSelf(player: PlayerRequest, userId: string | undefined): void {
  if (userId === undefined || userId === '') return;
  if (fromProtocolId(userId) !== player.player.userId) throw forbidden('another account');
}

const emptyResult = (startIndex = 0) => ({ Items: [], TotalRecordCount: 0, StartIndex: startIndex });

/** Browsing: views, item queries, latest, resume, series, seasons, episodes, next up. */
export function registerBrowseRoutes(routes: ProtocolRoutes): void {
  const { deps } = routes;
  const userOf = (request: { params: unknown }, player: PlayerRequest) => {
    const params = request.params as { userId?: string };
    assertSelf(player, params.userId ?? player.query.string('UserId'));
    return player.player.userId;
  };
  // Cached answers are kept per library access too, so a changed access is not answered from the cache.
  const cached = async <T>(player: PlayerRequest, url: string, load: () => Promise<T>) => {
    if (!deps.cache.isEnabled) return load();
    const { libraryAccess } = await deps.gate.policy(player.player.userId);
    const scope = libraryAccess.mode === 'ALL' ? '*' : [...libraryAccess.libraryIds].sort().join(',');
    return deps.cache.through(player.player.userId, `${scope}\u0000${url}`, load);
  };

  const views = async (userId: string) => {
    const list = await deps.media.views(userId);
    return list.map((view) =>
      viewDto(view, deps.server(), view.imageItemId ? toProtocolId(view.imageItemId) : undefined),
    );
  };

  routes.signedIn(protoA.GetUserViews, async (request, _reply, player) => {
    const userId = userOf(request, player);
    return cached(player, request.url, async () => {
      const items = await views(userId);
      return { Items: items, TotalRecordCount: items.length, StartIndex: 0 };
    });
  });

  routes.signedIn(protoA.GetItems, async (request, _reply, player) => {
    const userId = userOf(request, player);
    return cached(player, request.url, () => queryItems(routes, player, userId));
  });

  routes.signedIn(protoA.GetLatestItems, async (request, _reply, player) => {
    const userId = userOf(request, player);
    const { query } = player;
    return cached(player, request.url, async () => {
      const types = kindsOf(query.list('IncludeItemTypes'));
      if (types.onlyUnknown) return [];
      const parentId = query.string('ParentId');
      const answer = await deps.media.latest(userId, {
        ...(parentId ? { parentId: fromProtocolId(parentId) ?? parentId } : {}),
        ...(types.kinds.length > 0 ? { kinds: types.kinds.join(',') } : {}),
        limit: query.integer('Limit', { min: 1, max: 200 }) ?? 20,
      });
      const options = dtoOptions(routes, player, query);
      return answer.items.map((item) => itemDto(item, deps.server(), options));
    });
  });

  routes.signedIn(protoA.GetResumeItems, async (request, _reply, player) => {
    const userId = userOf(request, player);
    const { query } = player;
    return cached(player, request.url, async () => {
      const parentId = query.string('ParentId');
      const answer = await deps.media.resume(userId, {
        ...(parentId ? { parentId: fromProtocolId(parentId) ?? parentId } : {}),
        limit: query.integer('Limit', { min: 1, max: 200 }) ?? 20,
      });
      return resultOf(routes, player, query, answer.items, answer.totalRecordCount, 0);
    });
  });

  routes.signedIn(protoA.GetRootFolder, async (request, _reply, player) => {
    userOf(request, player);
    const server = deps.server();
    return {
      Name: 'Media Folders',
      ServerId: server.serverId,
      Id: server.serverId,
      Type: 'UserRootFolder',
      IsFolder: true,
      DateCreated: new Date(0).toISOString(),
      ImageTags: {},
      BackdropImageTags: [],
      LocationType: 'FileSystem',
    };
  });

  routes.signedIn(protoA.GetItem, async (request, _reply, player) => {
    const userId = userOf(request, player);
    const { id } = request.params as { id: string };
    return cached(player, request.url, async () => {
      const itemId = fromProtocolId(id);
      if (!itemId) throw notFound('item');
      try {
        const item = await deps.media.item(userId, itemId);
        return itemDto(item, deps.server(), dtoOptions(routes, player, player.query, true));
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode !== 404) throw error;
        const view = (await views(userId)).find((candidate) => candidate.Id === toProtocolId(itemId));
        if (!view) throw error;
        return view;
      }
    });
  });

  routes.signedIn(protoA.GetSeasons, async (request, _reply, player) => {
    const userId = userOf(request, player);
    const seriesId = fromProtocolId((request.params as { id: string }).id);
    if (!seriesId) return emptyResult();
    return cached(player, request.url, async () => {
      const answer = await deps.media.items({
        userId,
        parentId: seriesId,
        includeKinds: ['season'],
        sortBy: ['index'],
        limit: 1000,
      });
      return resultOf(routes, player, player.query, answer.items, answer.totalRecordCount, 0);
    });
  });

  routes.signedIn(protoA.GetEpisodes, async (request, _reply, player) => {
    const userId = userOf(request, player);
    const seriesId = fromProtocolId((request.params as { id: string }).id);
    if (!seriesId) return emptyResult();
    const { query } = player;
    return cached(player, request.url, async () => {
      const seasonId = fromProtocolId(query.string('SeasonId'));
      const season = query.integer('Season');
      const startIndex = query.integer('StartIndex', { min: 0 }) ?? 0;
      const limit = query.integer('Limit', { min: 0, max: 1000 }) ?? 1000;
      const request: PlaybackItemsQuery = seasonId
        ? { userId, parentId: seasonId, includeKinds: ['episode'], sortBy: ['index'], startIndex, limit }
        : {
            userId,
            seriesId,
            ...(season !== undefined ? { seasonNumber: season } : {}),
            recursive: true,
            parentId: seriesId,
            includeKinds: ['episode'],
            sortBy: ['parentIndex', 'index'],
            startIndex,
            limit,
          };
      const answer = await deps.media.items(request);
      return resultOf(routes, player, query, answer.items, answer.totalRecordCount, startIndex);
    });
  });

  routes.signedIn(protoA.GetNextUp, async (request, _reply, player) => {
    const userId = userOf(request, player);
    const { query } = player;
    return cached(player, request.url, async () => {
      const seriesId = query.string('SeriesId');
      const answer = await deps.media.nextUp(userId, {
        ...(seriesId ? { seriesId: fromProtocolId(seriesId) ?? seriesId } : {}),
        limit: query.integer('Limit', { min: 1, max: 200 }) ?? 20,
      });
      return resultOf(routes, player, query, answer.items, answer.totalRecordCount, 0);
    });
  });
}

function resultOf(
  routes: ProtocolRoutes,
  player: PlayerRequest,
  query: ProtocolQuery,
  items: PlaybackItem[],
  total: number,
  startIndex: number,
) {
  const options = dtoOptions(routes, player, query);
  return {
    Items: items.map((item) => itemDto(item, routes.deps.server(), options)),
    TotalRecordCount: total,
    StartIndex: startIndex,
  };
}

/** GET Items: the query parameters players use, mapped onto the media service's catalogue query. */
async function queryItems(routes: ProtocolRoutes, player: PlayerRequest, userId: string) {
  const { deps } = routes;
  const { query } = player;
  const startIndex = query.integer('StartIndex', { min: 0 }) ?? 0;
  const limit = query.integer('Limit', { min: 0, max: 1000 }) ?? 1000;
  const rawParent = query.string('ParentId');
  const recursive = query.boolean('Recursive') ?? false;
  const ids = query.list('Ids');
  const searchTerm = query.string('SearchTerm');
  const include = kindsOf([...query.list('IncludeItemTypes'), ...query.list('MediaTypes')]);
  const exclude = kindsOf(query.list('ExcludeItemTypes'));
  if (include.onlyUnknown) return emptyResult(startIndex);

  // The user's root folder has the server's id (see Items/Root).
  const isRoot = rawParent?.replace(/-/g, '').toLowerCase() === deps.server().serverId;
  const parentId = rawParent && !isRoot ? fromProtocolId(rawParent) : undefined;
  if (rawParent && !isRoot && !parentId) return emptyResult(startIndex);
  if (!parentId && !recursive && ids.length === 0 && !searchTerm && include.kinds.length === 0) {
    // The user's root: the libraries.
    const views = (await deps.media.views(userId)).map((view) =>
      viewDto(view, deps.server(), view.imageItemId ? toProtocolId(view.imageItemId) : undefined),
    );
    return {
      Items: views.slice(startIndex, startIndex + limit),
      TotalRecordCount: views.length,
      StartIndex: startIndex,
    };
  }

  const filters = new Set(query.list('Filters').map((filter) => filter.toLowerCase()));
  const isPlayed =
    query.boolean('IsPlayed') ??
    (filters.has('isplayed') ? true : filters.has('isunplayed') ? false : undefined);
  const isFavorite = query.boolean('IsFavorite') ?? (filters.has('isfavorite') ? true : undefined);
  const isResumable = filters.has('isresumable') ? true : undefined;
  const sortBy = query
    .list('SortBy')
    .map((field) => SORT_BY[field.toLowerCase()])
    .filter((field): field is PlaybackSortField => field !== undefined);
  const descending = query.list('SortOrder')[0]?.toLowerCase() === 'descending';
  const years = query
    .list('Years')
    .filter((year) => /^\d{4}$/.test(year))
    .map(Number);
  const validIds = ids.map((id) => fromProtocolId(id)).filter((id): id is string => id !== null);
  if (ids.length > 0 && validIds.length === 0) return emptyResult(startIndex);

  const answer = await deps.media.items({
    userId,
    ...(parentId ? { parentId } : {}),
    recursive,
    includeKinds: include.kinds,
    excludeKinds: exclude.kinds,
    ...(validIds.length > 0 ? { ids: validIds.slice(0, 500) } : {}),
    ...(searchTerm ? { searchTerm: searchTerm.slice(0, 256) } : {}),
    ...(isPlayed !== undefined ? { isPlayed } : {}),
    ...(isFavorite !== undefined ? { isFavorite } : {}),
    ...(isResumable !== undefined ? { isResumable } : {}),
    ...(years.length > 0 ? { years: years.slice(0, 100) } : {}),
    sortBy: sortBy.length > 0 ? sortBy.slice(0, 8) : ['name'],
    sortOrder: descending ? 'desc' : 'asc',
    startIndex,
    limit,
  });
  return resultOf(routes, player, query, answer.items, answer.totalRecordCount, startIndex);
}
