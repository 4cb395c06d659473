import { describe, expect, it } from 'vitest';
import { planLibrary, type FileRef } from '../../../src/services/media/scan/library-layout.js';
import {
  compileReplacePath,
  webhookInput,
} from '../../../src/services/media/webhooks/inbound/webhook.service.js';
import { scanScope } from '../../../src/services/media/scan/scan-scope.js';

const files = (...paths: string[]): FileRef[] =>
  paths.map((path) => ({ path, size: 10, mtime: '2024-01-01T00:00:00.000Z' }));

describe('planning a walked tree', () => {
  it('finds movies in their own folders and loose, with nfo, artwork and subtitles', () => {
    const plan = planLibrary(
      'movies',
      '/Movies',
      files(
        '/Movies/Heat (1995)/Heat (1995).mkv',
        '/Movies/Heat (1995)/movie.nfo',
        '/Movies/Heat (1995)/poster.jpg',
        '/Movies/Heat (1995)/fanart.jpg',
        '/Movies/Heat (1995)/Heat (1995).en.srt',
        '/Movies/Heat (1995)/Heat (1995).de.forced.ass',
        '/Movies/Heat (1995)/Heat (1995)-trailer.mkv',
        '/Movies/Heat (1995)/Extras/Making of.mkv',
        '/Movies/The.Matrix.1999.1080p.mkv',
        '/Movies/The.Matrix.1999.1080p-poster.png',
        '/Movies/poster.jpg',
        '/Movies/x.mkv.part',
        '/Other/Elsewhere (2000).mkv',
      ),
    );
    expect(plan.movies.map((movie) => [movie.parsed.title, movie.parsed.year])).toEqual([
      ['Heat', 1995],
      ['The Matrix', 1999],
    ]);
    const [heat, matrix] = plan.movies;
    expect(heat!.nfo?.path).toBe('/Movies/Heat (1995)/movie.nfo');
    expect(heat!.images.poster?.path).toBe('/Movies/Heat (1995)/poster.jpg');
    expect(heat!.images.fanart?.path).toBe('/Movies/Heat (1995)/fanart.jpg');
    expect(heat!.subtitles).toEqual([
      {
        path: '/Movies/Heat (1995)/Heat (1995).de.forced.ass',
        format: 'ass',
        language: 'de',
        forced: true,
        default: false,
        hearingImpaired: false,
      },
      {
        path: '/Movies/Heat (1995)/Heat (1995).en.srt',
        format: 'srt',
        language: 'en',
        forced: false,
        default: false,
        hearingImpaired: false,
      },
    ]);
    // A loose file does not take the folder's poster.jpg, only its own.
    expect(matrix!.images.poster?.path).toBe('/Movies/The.Matrix.1999.1080p-poster.png');
    expect(matrix!.nfo).toBeNull();
  });

  it('builds series, seasons and episodes, multi-episode files and specials', () => {
    const plan = planLibrary(
      'series',
      '/TV',
      files(
        '/TV/Show (2020)/tvshow.nfo',
        '/TV/Show (2020)/poster.jpg',
        '/TV/Show (2020)/season01-poster.jpg',
        '/TV/Show (2020)/season-specials-poster.jpg',
        '/TV/Show (2020)/Season 01/Show - S01E01 - Pilot.mkv',
        '/TV/Show (2020)/Season 01/Show - S01E01 - Pilot.nfo',
        '/TV/Show (2020)/Season 01/Show - S01E01 - Pilot-thumb.jpg',
        '/TV/Show (2020)/Season 01/Show - S01E02.mkv',
        '/TV/Show (2020)/Season 02/Show - S02E01-E02 - Double.mkv',
        '/TV/Show (2020)/Season 02/poster.jpg',
        '/TV/Show (2020)/Specials/Show - S00E01.mkv',
        '/TV/Another/1x05 - Five.mkv',
        '/TV/Show (2020)/Season 01/Commentary.mkv',
      ),
    );
    expect(
      [...plan.series.values()].map((series) => [series.parsed.title, series.parsed.year, series.nfo?.path]),
    ).toEqual([
      ['Show', 2020, '/TV/Show (2020)/tvshow.nfo'],
      ['Another', null, undefined],
    ]);
    const seasons = [...plan.seasons.values()].map((season) => [
      season.key,
      season.images.poster?.path ?? null,
    ]);
    expect(seasons).toEqual([
      ['season:series:/TV/Show (2020)#1', '/TV/Show (2020)/season01-poster.jpg'],
      ['season:series:/TV/Show (2020)#2', '/TV/Show (2020)/Season 02/poster.jpg'],
      ['season:series:/TV/Show (2020)#0', '/TV/Show (2020)/season-specials-poster.jpg'],
      ['season:series:/TV/Another#1', null],
    ]);
    expect(plan.episodes.map((e) => [e.seasonNumber, e.episodeNumber, e.episodeNumberEnd, e.name])).toEqual([
      [1, 1, null, 'Pilot'],
      [1, 2, null, null],
      [2, 1, 2, 'Double'],
      [0, 1, null, null],
      [1, 5, null, 'Five'],
    ]);
    expect(plan.episodes[0]!.images.thumb?.path).toBe(
      '/TV/Show (2020)/Season 01/Show - S01E01 - Pilot-thumb.jpg',
    );
    expect(plan.episodes[0]!.nfo?.path).toBe('/TV/Show (2020)/Season 01/Show - S01E01 - Pilot.nfo');
    expect(plan.skipped).toEqual(['/TV/Show (2020)/Season 01/Commentary.mkv']);
  });

  it('tells movies from episodes in a mixed library, and skips what a series library cannot place', () => {
    const tree = files(
      '/Movies/Heat (1995)/Heat (1995).mkv',
      '/TV/Show/Season 1/E01.mkv',
      '/TV/Show/Show.S01E02.mkv',
    );
    const mixed = planLibrary('mixed', '/', tree);
    expect(mixed.movies.map((m) => m.parsed.title)).toEqual(['Heat']);
    expect(mixed.episodes.map((e) => [e.seriesKey, e.episodeNumber])).toEqual([
      ['series:/TV/Show', 1],
      ['series:/TV/Show', 2],
    ]);
    expect(planLibrary('series', '/', tree).skipped).toEqual(['/Movies/Heat (1995)/Heat (1995).mkv']);
  });

  it('changes the signature when a sidecar changes', () => {
    const before = planLibrary('movies', '/M', files('/M/A (2000)/A (2000).mkv', '/M/A (2000)/movie.nfo'))
      .movies[0]!;
    const after = planLibrary('movies', '/M', [
      ...files('/M/A (2000)/A (2000).mkv'),
      { path: '/M/A (2000)/movie.nfo', size: 11, mtime: '2024-01-01T00:00:00.000Z' },
    ]).movies[0]!;
    expect(before.sidecarSig).not.toBe(after.sidecarSig);
  });
});

describe('webhook paths', () => {
  it('strips a mount prefix with replace_path', () => {
    const replace = compileReplacePath('/mnt*/')!;
    expect(replace('/mnt1/Movies/x.mkv')).toBe('/Movies/x.mkv');
    expect(replace('/mnt-cloud/TV/Show')).toBe('/TV/Show');
    expect(replace('/other/Movies/x.mkv')).toBe('/other/Movies/x.mkv');
    expect(compileReplacePath('/data/*/media')!('/data/disk2/media/TV/Show')).toBe('/TV/Show');
    expect(compileReplacePath('/mnt.x/')!('/mntAx/a')).toBe('/mntAx/a');
    expect(compileReplacePath('relative')).toBeNull();
    expect(compileReplacePath('/a/../b')).toBeNull();
  });

  it('reads data from a body, repeated query parameters or a JSON-encoded one', () => {
    expect(webhookInput({ data: ['/a'] }, {})).toEqual({ data: ['/a'] });
    expect(webhookInput(undefined, { data: ['/a', '/b'], replace_path: '/m*/' })).toEqual({
      data: ['/a', '/b'],
      replace_path: '/m*/',
    });
    expect(webhookInput(undefined, { data: '["/a","/b"]' })).toEqual({ data: ['/a', '/b'] });
    expect(webhookInput(undefined, { data: '/a' })).toEqual({ data: ['/a'] });
    expect(webhookInput(undefined, {})).toEqual({});
  });

  it('walks the folder that holds what an item is made of', () => {
    expect(scanScope('/TV', null)).toEqual({ walkRoot: '/TV', removalScope: null });
    expect(scanScope('/TV', '/TV/Show (2020)/Season 01/Show - S01E01.mkv')).toEqual({
      walkRoot: '/TV/Show (2020)',
      removalScope: '/TV/Show (2020)/Season 01/Show - S01E01.mkv',
    });
    expect(scanScope('/TV', '/TV/Show (2020)/Season 01').walkRoot).toBe('/TV/Show (2020)');
    expect(scanScope('/Movies', '/Movies/Heat (1995)').walkRoot).toBe('/Movies/Heat (1995)');
    expect(scanScope('/Movies', '/Movies/loose.mkv').walkRoot).toBe('/Movies');
  });
});
