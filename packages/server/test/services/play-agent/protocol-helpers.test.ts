import { randomUUID } from 'node:crypto';
import type { PlaybackItem, PlaybackView } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import {
  itemDto,
  userDataDto,
  viewDto,
  type ServerIdentity,
} from '../../../src/services/play-agent/proto-a/dto.js';
import {
  TICKS_PER_SECOND,
  fromProtocolId,
  secondsToTicks,
  toProtocolId,
} from '../../../src/services/play-agent/proto-a/ids.js';
import { mediaSourceDto } from '../../../src/services/play-agent/proto-a/media-source.js';
import { ProtocolQuery } from '../../../src/services/play-agent/proto-a/query.js';
import { srtToVtt } from '../../../src/services/play-agent/proto-a/subtitles.js';
import { playbackUserData } from '../../support/playback-user-data.js';

/** The error a call throws (undefined when it does not throw). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}
const validation = { statusCode: 400, code: 'VALIDATION_FAILED' };

describe('ProtocolQuery', () => {
  it('names are case-insensitive', () => {
    const query = new ProtocolQuery({ ParentId: 'p-1', LIMIT: '5' });
    expect(query.string('parentId')).toBe('p-1');
    expect(query.string('PARENTID')).toBe('p-1');
    expect(query.has('parentid')).toBe(true);
    expect(query.integer('Limit')).toBe(5);
    expect(query.has('StartIndex')).toBe(false);
    expect(query.string('StartIndex')).toBeUndefined();
  });

  it('lists: comma-separated, repeated, both, and the same name in different cases', () => {
    const query = new ProtocolQuery({
      IncludeItemTypes: 'Movie,Series',
      includeItemTypes: ['Episode', ' Season , BoxSet', ''],
      Fields: 'Overview,,Path, ',
    });
    expect(query.list('includeitemtypes')).toEqual(['Movie', 'Series', 'Episode', 'Season', 'BoxSet']);
    expect(query.list('FIELDS')).toEqual(['Overview', 'Path']);
    expect(query.list('Ids')).toEqual([]);
  });

  it('string() answers the first non-empty value', () => {
    expect(new ProtocolQuery({ userId: ['', 'u-1', 'u-2'] }).string('UserId')).toBe('u-1');
    expect(new ProtocolQuery({ userId: '' }).string('UserId')).toBeUndefined();
  });

  it('ignores undefined values and anything that is not an object', () => {
    expect(new ProtocolQuery({ a: undefined }).has('a')).toBe(false);
    expect(new ProtocolQuery(undefined).has('a')).toBe(false);
    expect(new ProtocolQuery('a=1').has('a')).toBe(false);
    expect(new ProtocolQuery(null).list('a')).toEqual([]);
  });

  it('booleans: true/1/yes and false/0/no in any case; missing is undefined', () => {
    for (const value of ['true', 'True', 'TRUE', '1', 'yes', 'Yes']) {
      expect(new ProtocolQuery({ Recursive: value }).boolean('recursive'), value).toBe(true);
    }
    for (const value of ['false', 'False', '0', 'no', 'NO']) {
      expect(new ProtocolQuery({ Recursive: value }).boolean('recursive'), value).toBe(false);
    }
    expect(new ProtocolQuery({}).boolean('Recursive')).toBeUndefined();
  });

  it('a boolean that is neither is a 400', () => {
    for (const value of ['maybe', 'truefalse', '2', 'on', ' true']) {
      expect(
        thrown(() => new ProtocolQuery({ IsPlayed: value }).boolean('IsPlayed')),
        value,
      ).toMatchObject(validation);
    }
  });

  it('integers within their bounds; values outside are clamped', () => {
    const query = new ProtocolQuery({ Limit: '5000', StartIndex: '-3', Year: '2020', Zero: '0' });
    expect(query.integer('Limit', { min: 0, max: 1_000 })).toBe(1_000);
    expect(query.integer('StartIndex', { min: 0 })).toBe(0);
    expect(query.integer('Year')).toBe(2020);
    expect(query.integer('StartIndex')).toBe(-3);
    expect(query.integer('Zero', { min: 0, max: 10 })).toBe(0);
    expect(query.integer('Missing', { min: 1 })).toBeUndefined();
  });

  it('a non-number integer is a 400', () => {
    for (const value of ['abc', '1.5', '1e3', '0x10', '12abc', '9'.repeat(16), '+5', ' 5']) {
      expect(
        thrown(() => new ProtocolQuery({ Limit: value }).integer('Limit')),
        value,
      ).toMatchObject(validation);
    }
  });
});

describe('protocol ids', () => {
  const dashed = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
  const compact = '3f2504e04f8911d39a0c0305e82c3301';

  it('go out compact and lower case', () => {
    expect(toProtocolId(dashed)).toBe(compact);
    expect(toProtocolId(dashed.toUpperCase())).toBe(compact);
    expect(toProtocolId(dashed)).toMatch(/^[0-9a-f]{32}$/);
  });

  it('come back in the dashed form from either form, any case', () => {
    expect(fromProtocolId(compact)).toBe(dashed);
    expect(fromProtocolId(compact.toUpperCase())).toBe(dashed);
    expect(fromProtocolId(dashed)).toBe(dashed);
    expect(fromProtocolId(dashed.toUpperCase())).toBe(dashed);
  });

  it('round trip', () => {
    for (let i = 0; i < 50; i += 1) {
      const id = randomUUID();
      expect(fromProtocolId(toProtocolId(id))).toBe(id);
    }
  });

  it('anything else is no id of ours', () => {
    for (const junk of [
      undefined,
      '',
      'abc',
      'movies',
      compact.slice(1),
      `${compact}0`,
      compact.replace('3', 'g'),
      `{${dashed}}`,
      `${dashed}/x`,
      '../../etc/passwd',
    ]) {
      expect(fromProtocolId(junk), String(junk)).toBeNull();
    }
  });

  it('ticks are 100 ns', () => {
    expect(TICKS_PER_SECOND).toBe(10_000_000);
    expect(secondsToTicks(1.5)).toBe(15_000_000);
    expect(Number.isInteger(secondsToTicks(1 / 3))).toBe(true);
  });
});

describe('srtToVtt', () => {
  const srt = [
    '1',
    '00:00:01,000 --> 00:00:02,500',
    'Hello, world',
    '',
    '2',
    '01:02:03,040 --> 01:02:05,999',
    'Well, well, 12:00:00,000 and all',
    '',
  ].join('\n');

  it('adds the header and turns commas into dots in cue times only', () => {
    const vtt = srtToVtt(srt);
    expect(vtt.startsWith('WEBVTT\n\n')).toBe(true);
    expect(vtt).toContain('\n00:00:01.000 --> 00:00:02.500\nHello, world\n');
    expect(vtt).toContain('\n01:02:03.040 --> 01:02:05.999\nWell, well, 12:00:00,000 and all');
    expect(vtt).not.toMatch(/\d,\d{3} -->/);
    expect(vtt.endsWith('all\n')).toBe(true);
  });

  it('drops a byte-order mark and turns CRLF and CR into LF', () => {
    const crlf = `\uFEFF${srt.replace(/\n/g, '\r\n')}`;
    const vtt = srtToVtt(crlf);
    expect(vtt).toBe(srtToVtt(srt));
    expect(vtt).not.toContain('\r');
    expect(vtt).not.toContain('\uFEFF');
    expect(vtt.startsWith('WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.500\n')).toBe(true);
    expect(srtToVtt(srt.replace(/\n/g, '\r'))).toBe(srtToVtt(srt));
  });

  it('an empty file is still a valid header', () => {
    expect(srtToVtt('')).toMatch(/^WEBVTT\n/);
    expect(srtToVtt('\uFEFF\r\n')).toMatch(/^WEBVTT\n/);
  });
});

// --- DTOs --------------------------------------------------------------------------------------------------

const server: ServerIdentity = {
  serverId: 'f00df00df00df00df00df00df00df00d',
  serverName: 'SVC Media',
  productName: 'SVC Media Server',
  version: '4.8.10.0',
};

const MOVIE_ID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const LIBRARY_ID = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
const compactId = (id: string) => id.replace(/-/g, '');

function movie(overrides: Partial<PlaybackItem> = {}): PlaybackItem {
  return {
    id: MOVIE_ID,
    libraryId: LIBRARY_ID,
    kind: 'movie',
    name: 'Big Movie',
    originalTitle: null,
    sortName: 'big movie',
    overview: 'A big one.',
    year: 2020,
    premiereDate: '2020-05-01T00:00:00.000Z',
    parentId: LIBRARY_ID,
    seriesId: null,
    seriesName: null,
    seasonId: null,
    seasonName: null,
    indexNumber: null,
    indexNumberEnd: null,
    parentIndexNumber: null,
    childCount: null,
    recursiveItemCount: null,
    dateCreated: '2024-01-02T03:04:05.000Z',
    providerIds: { tmdb: '42', imdb: 'tt0000042' },
    imageTags: { poster: 'poster-tag', fanart: 'fanart-tag' },
    userData: playbackUserData({
      playbackPositionTicks: 600 * TICKS_PER_SECOND,
      playCount: 2,
      isFavorite: true,
    }),
    file: {
      nodeId: 'node-1',
      mountId: 'mount-1',
      path: '/movies/Big Movie (2020)/Big.Movie.2020.MKV',
      size: 4_000_000_000,
      mtime: '2024-01-01T00:00:00.000Z',
      mediaInfo: {
        container: 'matroska,webm',
        durationSeconds: 5_400.5,
        bitrate: 8_000_000,
        size: 4_000_000_000,
        streams: [
          { index: 0, type: 'video', codec: 'h264', width: 1920, height: 1080, default: true },
          { index: 1, type: 'audio', codec: 'aac', language: 'eng', channels: 6, default: true },
          { index: 2, type: 'audio', codec: 'ac3', language: 'ger', channels: 2 },
          { index: 3, type: 'subtitle', codec: 'subrip', language: 'eng', title: 'Full' },
        ],
      },
      subtitles: [
        {
          path: '/movies/Big Movie (2020)/Big.Movie.2020.en.srt',
          format: 'srt',
          language: 'en',
          forced: false,
          default: false,
          hearingImpaired: false,
        },
        {
          path: '/movies/Big Movie (2020)/Big.Movie.2020.de.forced.ass',
          format: 'ass',
          language: 'de',
          forced: true,
          default: false,
          hearingImpaired: false,
        },
      ],
    },
    ...overrides,
  };
}

const ALL = { fields: new Set<string>(), all: true };

describe('userDataDto', () => {
  it('has the UserItemDataDto fields with their types', () => {
    const dto = userDataDto(
      'abc',
      playbackUserData({ played: true, playCount: 3, isFavorite: true, playbackPositionTicks: 50 }),
      100,
    );
    expect(dto).toMatchObject({
      PlaybackPositionTicks: 50,
      PlayCount: 3,
      IsFavorite: true,
      Played: true,
      PlayedPercentage: 50,
      Key: 'abc',
      ItemId: 'abc',
    });
    const empty = userDataDto('abc', playbackUserData());
    expect(empty).toMatchObject({ PlaybackPositionTicks: 0, PlayCount: 0, IsFavorite: false, Played: false });
    expect(empty).not.toHaveProperty('PlayedPercentage');
    expect(empty).not.toHaveProperty('LastPlayedDate');
  });

  it('names the last play and the unplayed count when known', () => {
    const dto = userDataDto(
      'abc',
      playbackUserData({ lastPlayedAt: '2024-05-05T00:00:00.000Z', unplayedItemCount: 4 }),
    );
    expect(dto).toMatchObject({ LastPlayedDate: '2024-05-05T00:00:00.000Z', UnplayedItemCount: 4 });
  });
});

describe('viewDto', () => {
  const view: PlaybackView = {
    id: LIBRARY_ID,
    name: 'Films',
    type: 'series',
    itemCount: 12,
    dateCreated: '2024-01-01T00:00:00.000Z',
    imageItemId: MOVIE_ID,
  };

  it('is a CollectionFolder with a compact id, the server id and the collection type', () => {
    const dto = viewDto(view, server, 'tag-1');
    expect(dto).toMatchObject({
      Id: compactId(LIBRARY_ID),
      Name: 'Films',
      ServerId: server.serverId,
      Type: 'CollectionFolder',
      CollectionType: 'tvshows',
      IsFolder: true,
      ChildCount: 12,
      ImageTags: { Primary: 'tag-1' },
      BackdropImageTags: [],
      UserData: { PlaybackPositionTicks: 0, PlayCount: 0, IsFavorite: false, Played: false },
    });
    expect(viewDto({ ...view, type: 'movies' }, server).CollectionType).toBe('movies');
    expect(viewDto({ ...view, type: 'mixed' }, server).CollectionType).toBe('mixed');
    expect(viewDto(view, server).ImageTags).toEqual({});
  });
});

describe('itemDto', () => {
  it('a movie: BaseItemDto fields and types', () => {
    const dto = itemDto(movie(), server, ALL);
    expect(dto).toMatchObject({
      Id: compactId(MOVIE_ID),
      Name: 'Big Movie',
      ServerId: server.serverId,
      Type: 'Movie',
      MediaType: 'Video',
      IsFolder: false,
      ParentId: compactId(LIBRARY_ID),
      ProductionYear: 2020,
      PremiereDate: '2020-05-01T00:00:00.000Z',
      RunTimeTicks: 54_005_000_000,
      Container: 'mkv',
      Size: 4_000_000_000,
      Bitrate: 8_000_000,
      Overview: 'A big one.',
      Path: '/movies/Big Movie (2020)/Big.Movie.2020.MKV',
      ProviderIds: { Tmdb: '42', Imdb: 'tt0000042' },
      ImageTags: { Primary: 'poster-tag' },
      BackdropImageTags: ['fanart-tag'],
      UserData: {
        PlaybackPositionTicks: 6_000_000_000,
        PlayCount: 2,
        IsFavorite: true,
        Played: false,
        Key: compactId(MOVIE_ID),
      },
    });
    expect(Number.isInteger(dto.RunTimeTicks)).toBe(true);
    expect(typeof dto.Id).toBe('string');
    expect(dto.Id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('optional fields only when asked (Fields is lower-cased by the caller)', () => {
    const dto = itemDto(movie(), server, { fields: new Set(['overview']), all: false });
    expect(dto.Overview).toBe('A big one.');
    expect(dto).not.toHaveProperty('Path');
    expect(dto).not.toHaveProperty('ProviderIds');
    expect(dto).not.toHaveProperty('MediaSources');
  });

  it('MediaSources and MediaStreams come from the mediaSources callback when asked for', () => {
    const sources = (item: PlaybackItem) => [mediaSourceDto(item, { server, token: 'svc_ply_t' })];
    const dto = itemDto(movie(), server, { ...ALL, mediaSources: sources });
    const [source] = dto.MediaSources as Record<string, unknown>[];
    expect(source).toMatchObject({ Id: compactId(MOVIE_ID), Protocol: 'File' });
    expect(dto.MediaStreams).toEqual(source!.MediaStreams);

    const streamsOnly = itemDto(movie(), server, {
      fields: new Set(['mediastreams']),
      all: false,
      mediaSources: sources,
    });
    expect(streamsOnly).not.toHaveProperty('MediaSources');
    expect((streamsOnly.MediaStreams as unknown[]).length).toBe(6);
  });

  it('a series is a folder without media type or file fields', () => {
    const series = movie({
      kind: 'series',
      name: 'Show',
      file: null,
      childCount: 3,
      recursiveItemCount: 30,
      imageTags: {},
      userData: playbackUserData({ unplayedItemCount: 30 }),
    });
    const dto = itemDto(series, server, ALL);
    expect(dto).toMatchObject({
      Type: 'Series',
      IsFolder: true,
      ChildCount: 3,
      RecursiveItemCount: 30,
      ImageTags: {},
      BackdropImageTags: [],
      UserData: { UnplayedItemCount: 30, Played: false },
    });
    for (const field of ['MediaType', 'RunTimeTicks', 'Container', 'Size', 'MediaSources']) {
      expect(dto, field).not.toHaveProperty(field);
    }
  });

  it('an episode names its series and season by compact ids and its numbers', () => {
    const SERIES = '11111111-2222-4333-8444-555555555555';
    const SEASON = '66666666-7777-4888-9999-000000000000';
    const dto = itemDto(
      movie({
        kind: 'episode',
        name: 'Pilot',
        parentId: SEASON,
        seriesId: SERIES,
        seriesName: 'Show',
        seasonId: SEASON,
        seasonName: 'Season 1',
        indexNumber: 1,
        parentIndexNumber: 1,
      }),
      server,
      ALL,
    );
    expect(dto).toMatchObject({
      Type: 'Episode',
      MediaType: 'Video',
      IsFolder: false,
      SeriesId: compactId(SERIES),
      SeriesName: 'Show',
      SeasonId: compactId(SEASON),
      SeasonName: 'Season 1',
      ParentId: compactId(SEASON),
      IndexNumber: 1,
      ParentIndexNumber: 1,
    });
  });
});

describe('mediaSourceDto', () => {
  const options = { server, token: 'svc_ply_secret/+', playSessionId: 'ps-123' };

  it('one File source: id, path, container from the extension, size, bitrate, direct play and stream', () => {
    const source = mediaSourceDto(movie(), options);
    expect(source).toMatchObject({
      Id: compactId(MOVIE_ID),
      ItemId: compactId(MOVIE_ID),
      ServerId: server.serverId,
      Protocol: 'File',
      Path: '/movies/Big Movie (2020)/Big.Movie.2020.MKV',
      Container: 'mkv',
      Size: 4_000_000_000,
      Bitrate: 8_000_000,
      RunTimeTicks: 54_005_000_000,
      SupportsDirectPlay: true,
      SupportsDirectStream: true,
      SupportsTranscoding: false,
      DefaultAudioStreamIndex: 1,
    });
    expect(typeof source.Size).toBe('number');
    expect(Number.isInteger(source.Bitrate)).toBe(true);
  });

  it('DirectStreamUrl streams the item in its container, with api_key and PlaySessionId', () => {
    const source = mediaSourceDto(movie(), options);
    const url = new URL(source.DirectStreamUrl as string, 'http://player.invalid');
    expect(url.pathname).toBe(`/Videos/${compactId(MOVIE_ID)}/stream.mkv`);
    expect(url.searchParams.get('api_key')).toBe('svc_ply_secret/+');
    expect(url.searchParams.get('PlaySessionId')).toBe('ps-123');
    expect(url.searchParams.get('MediaSourceId')).toBe(compactId(MOVIE_ID));
    expect(url.searchParams.get('Static')).toBe('true');

    const bare = new URL(mediaSourceDto(movie(), { server }).DirectStreamUrl as string, 'http://x.invalid');
    expect(bare.searchParams.has('api_key')).toBe(false);
    expect(bare.searchParams.has('PlaySessionId')).toBe(false);
  });

  it('the container falls back to the short name of the probed family, as Emby reports it, without an extension', () => {
    const item = movie();
    item.file!.path = '/movies/noext';
    expect(mediaSourceDto(item, options).Container).toBe('mkv');
  });

  it('embedded streams keep their index, type, codec and language', () => {
    const streams = mediaSourceDto(movie(), options).MediaStreams as Record<string, unknown>[];
    expect(streams.slice(0, 4)).toEqual([
      expect.objectContaining({ Index: 0, Type: 'Video', Codec: 'h264', Width: 1920, Height: 1080 }),
      expect.objectContaining({ Index: 1, Type: 'Audio', Codec: 'aac', Language: 'eng', Channels: 6 }),
      expect.objectContaining({ Index: 2, Type: 'Audio', Codec: 'ac3', Language: 'ger' }),
      expect.objectContaining({
        Index: 3,
        Type: 'Subtitle',
        Codec: 'subrip',
        Language: 'eng',
        IsExternal: false,
        IsTextSubtitleStream: true,
      }),
    ]);
    for (const stream of streams.slice(0, 4)) expect(stream).not.toHaveProperty('DeliveryUrl');
  });

  it('external subtitles follow the embedded streams, with IsExternal and a DeliveryUrl', () => {
    const id = compactId(MOVIE_ID);
    const streams = mediaSourceDto(movie(), options).MediaStreams as Record<string, unknown>[];
    expect(streams).toHaveLength(6);
    expect(streams.slice(4)).toEqual([
      expect.objectContaining({
        Index: 4,
        Type: 'Subtitle',
        Codec: 'srt',
        Language: 'en',
        IsExternal: true,
        DeliveryMethod: 'External',
        DeliveryUrl: `/Videos/${id}/${id}/Subtitles/4/Stream.srt?api_key=svc_ply_secret%2F%2B`,
      }),
      expect.objectContaining({
        Index: 5,
        Type: 'Subtitle',
        Codec: 'ass',
        Language: 'de',
        IsForced: true,
        IsExternal: true,
        DeliveryUrl: `/Videos/${id}/${id}/Subtitles/5/Stream.ass?api_key=svc_ply_secret%2F%2B`,
      }),
    ]);
    const indexes = streams.map((s) => s.Index);
    expect(new Set(indexes).size).toBe(indexes.length);
  });

  it('external subtitles start after the highest embedded index, even with gaps', () => {
    const item = movie();
    item.file!.mediaInfo!.streams = [
      { index: 0, type: 'video', codec: 'hevc' },
      { index: 7, type: 'audio', codec: 'opus' },
    ];
    const streams = mediaSourceDto(item, options).MediaStreams as Record<string, unknown>[];
    expect(streams.map((s) => [s.Index, s.IsExternal])).toEqual([
      [0, false],
      [7, false],
      [8, true],
      [9, true],
    ]);
  });

  it('without probe data the external subtitles start at 0 and optional numbers are left out', () => {
    const item = movie();
    item.file!.mediaInfo = null;
    item.file!.size = null;
    const source = mediaSourceDto(item, options);
    expect((source.MediaStreams as Record<string, unknown>[]).map((s) => s.Index)).toEqual([0, 1]);
    for (const field of ['Size', 'Bitrate', 'RunTimeTicks', 'DefaultAudioStreamIndex']) {
      expect(source, field).not.toHaveProperty(field);
    }
  });

  it('an item without a file has no source', () => {
    expect(mediaSourceDto(movie({ file: null }), options)).toEqual({});
  });
});
