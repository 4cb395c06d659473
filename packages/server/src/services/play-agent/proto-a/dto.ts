import {
  containerName,
  type MediaChapter,
  type PlaybackFile,
  type PlaybackItem,
  type PlaybackUser,
  type PlaybackUserData,
  type PlaybackView,
} from '@svc/contracts';
import { secondsToTicks, toProtocolId } from './ids.js';

/** What every answer of the client protocol names: this server. */
export interface ServerIdentity {
  serverId: string;
  serverName: string;
  productName: string;
  version: string;
}

type Dto = Record<string, unknown>;

const ITEM_TYPE = { movie: 'Movie', series: 'Series', season: 'Season', episode: 'Episode' } as const;
const COLLECTION_TYPE = { movies: 'movies', series: 'tvshows', mixed: 'mixed' } as const;

/**
 * The container a player should expect, by its common short name as Emby reports it (`mkv`, `mp4`, `ts`):
 * the probed family with the file's extension naming the member (contracts `containerName`).
 */
export function containerOf(file: PlaybackFile): string {
  return containerName(file.mediaInfo?.container, file.path) ?? 'bin';
}

export function runTimeTicks(item: PlaybackItem): number | undefined {
  const seconds = item.file?.mediaInfo?.durationSeconds;
  return seconds ? secondsToTicks(seconds) : undefined;
}

/**
 * Emby's user DTO. `libraries`: the user's library access in effect (Policy.EnableAllFolders and
 * EnabledFolders, as Emby reports a user limited to some libraries); every library when not given.
 */
export function userDto(
  user: PlaybackUser,
  server: ServerIdentity,
  libraries?: { mode: 'ALL' | 'ALLOW_LIST'; libraryIds: readonly string[] },
): Dto {
  const allFolders = !libraries || libraries.mode === 'ALL';
  return {
    Name: user.username,
    ServerId: server.serverId,
    ServerName: server.serverName,
    Id: toProtocolId(user.id),
    HasPassword: true,
    HasConfiguredPassword: true,
    HasConfiguredEasyPassword: false,
    EnableAutoLogin: false,
    DateCreated: user.createdAt,
    ...(user.lastLoginAt ? { LastLoginDate: user.lastLoginAt, LastActivityDate: user.lastLoginAt } : {}),
    Configuration: {
      PlayDefaultAudioTrack: true,
      SubtitleMode: 'Default',
      DisplayMissingEpisodes: false,
      OrderedViews: [],
      LatestItemsExcludes: [],
      MyMediaExcludes: [],
      HidePlayedInLatest: true,
      RememberAudioSelections: true,
      RememberSubtitleSelections: true,
      EnableNextEpisodeAutoPlay: true,
    },
    Policy: {
      IsAdministrator: user.role === 'admin',
      IsHidden: true,
      IsDisabled: user.disabled,
      EnableUserPreferenceAccess: true,
      EnableRemoteAccess: true,
      EnableMediaPlayback: true,
      EnableAudioPlaybackTranscoding: false,
      EnableVideoPlaybackTranscoding: false,
      EnablePlaybackRemuxing: false,
      EnableContentDeletion: false,
      EnableContentDownloading: true,
      EnableSyncTranscoding: false,
      EnableMediaConversion: false,
      EnableAllChannels: true,
      EnableAllFolders: allFolders,
      EnabledFolders: allFolders ? [] : libraries.libraryIds.map(toProtocolId),
      EnableAllDevices: true,
      EnablePublicSharing: false,
      InvalidLoginAttemptCount: 0,
      RemoteClientBitrateLimit: 0,
      SimultaneousStreamLimit: 0,
      AuthenticationProviderId: 'svc',
    },
  };
}

export function userDataDto(itemId: string, data: PlaybackUserData, runtime?: number): Dto {
  return {
    PlaybackPositionTicks: data.playbackPositionTicks,
    PlayCount: data.playCount,
    IsFavorite: data.isFavorite,
    Played: data.played,
    ...(data.lastPlayedAt ? { LastPlayedDate: data.lastPlayedAt } : {}),
    ...(data.unplayedItemCount !== null ? { UnplayedItemCount: data.unplayedItemCount } : {}),
    ...(runtime && data.playbackPositionTicks > 0
      ? { PlayedPercentage: Math.min(100, (data.playbackPositionTicks / runtime) * 100) }
      : {}),
    Key: itemId,
    ItemId: itemId,
  };
}

export function viewDto(view: PlaybackView, server: ServerIdentity, imageTag?: string): Dto {
  const id = toProtocolId(view.id);
  return {
    Name: view.name,
    ServerId: server.serverId,
    Id: id,
    Etag: id,
    DateCreated: view.dateCreated,
    CanDelete: false,
    CanDownload: false,
    SortName: view.name.toLowerCase(),
    ExternalUrls: [],
    Path: `/${view.name}`,
    Taglines: [],
    Genres: [],
    PlayAccess: 'Full',
    RemoteTrailers: [],
    ProviderIds: {},
    IsFolder: true,
    ParentId: server.serverId,
    Type: 'CollectionFolder',
    CollectionType: COLLECTION_TYPE[view.type],
    ChildCount: view.itemCount,
    DisplayPreferencesId: id,
    LocationType: 'FileSystem',
    PrimaryImageAspectRatio: 1.7777777777777777,
    ImageTags: imageTag ? { Primary: imageTag } : {},
    BackdropImageTags: [],
    UserData: { PlaybackPositionTicks: 0, PlayCount: 0, IsFavorite: false, Played: false, Key: id },
  };
}

function chaptersDto(chapters: MediaChapter[]): Dto[] {
  return chapters.map((chapter, index) => ({
    StartPositionTicks: secondsToTicks(chapter.startSeconds),
    Name: chapter.title ?? `Chapter ${index + 1}`,
    MarkerType: 'Chapter',
    ChapterIndex: index,
  }));
}

/** Optional fields a client asks for with `Fields`; the single-item routes include all of them. */
export interface ItemDtoOptions {
  fields: Set<string>;
  all: boolean;
  /** Needed for MediaSources and their stream URLs. */
  mediaSources?: (item: PlaybackItem) => Dto[];
}

export function itemDto(item: PlaybackItem, server: ServerIdentity, options: ItemDtoOptions): Dto {
  const id = toProtocolId(item.id);
  const want = (field: string) => options.all || options.fields.has(field.toLowerCase());
  const runtime = runTimeTicks(item);
  const isFile = item.kind === 'movie' || item.kind === 'episode';
  const dto: Dto = {
    Name: item.name,
    ServerId: server.serverId,
    Id: id,
    Etag: id,
    DateCreated: item.dateCreated,
    CanDelete: false,
    CanDownload: isFile,
    SortName: item.sortName,
    ...(item.originalTitle ? { OriginalTitle: item.originalTitle } : {}),
    ...(item.premiereDate ? { PremiereDate: item.premiereDate } : {}),
    ...(item.year !== null ? { ProductionYear: item.year } : {}),
    ...(item.indexNumber !== null ? { IndexNumber: item.indexNumber } : {}),
    ...(item.indexNumberEnd !== null ? { IndexNumberEnd: item.indexNumberEnd } : {}),
    ...(item.parentIndexNumber !== null ? { ParentIndexNumber: item.parentIndexNumber } : {}),
    ...(runtime ? { RunTimeTicks: runtime } : {}),
    IsFolder: !isFile,
    ...(item.parentId ? { ParentId: toProtocolId(item.parentId) } : {}),
    Type: ITEM_TYPE[item.kind],
    // Every signed-in account may play what it can see (no parental or download-only limits here).
    PlayAccess: 'Full',
    ...(isFile ? { MediaType: 'Video', VideoType: 'VideoFile', LocationType: 'FileSystem' } : {}),
    ...(item.seriesId ? { SeriesId: toProtocolId(item.seriesId) } : {}),
    ...(item.seriesName ? { SeriesName: item.seriesName } : {}),
    ...(item.seasonId ? { SeasonId: toProtocolId(item.seasonId) } : {}),
    ...(item.seasonName ? { SeasonName: item.seasonName } : {}),
    ...(item.childCount !== null ? { ChildCount: item.childCount } : {}),
    ...(item.recursiveItemCount !== null ? { RecursiveItemCount: item.recursiveItemCount } : {}),
    ImageTags: {
      ...(item.imageTags.poster ? { Primary: item.imageTags.poster } : {}),
      ...(item.imageTags.thumb ? { Thumb: item.imageTags.thumb } : {}),
    },
    BackdropImageTags: item.imageTags.fanart ? [item.imageTags.fanart] : [],
    ...(item.imageTags.poster ? { PrimaryImageAspectRatio: 2 / 3 } : {}),
    UserData: userDataDto(id, item.userData, runtime),
  };
  if (want('Overview') && item.overview) dto.Overview = item.overview;
  if (want('ProviderIds')) {
    dto.ProviderIds = {
      ...(item.providerIds.tmdb ? { Tmdb: item.providerIds.tmdb } : {}),
      ...(item.providerIds.imdb ? { Imdb: item.providerIds.imdb } : {}),
    };
  }
  if (want('Genres')) dto.Genres = [];
  if (isFile && item.file) {
    dto.Container = containerOf(item.file);
    if (want('Path')) dto.Path = item.file.path;
    if (item.file.size !== null) dto.Size = item.file.size;
    if (item.file.mediaInfo?.bitrate) dto.Bitrate = item.file.mediaInfo.bitrate;
    if (want('Chapters')) dto.Chapters = chaptersDto(item.file.mediaInfo?.chapters ?? []);
    if ((want('MediaSources') || want('MediaStreams')) && options.mediaSources) {
      const sources = options.mediaSources(item);
      if (want('MediaSources')) dto.MediaSources = sources;
      dto.MediaStreams = sources[0]?.MediaStreams ?? [];
    }
  }
  return dto;
}
