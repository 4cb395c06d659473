import { describe, expect, it } from 'vitest';
import {
  isSkippedFile,
  isSkippedFolder,
  isVideoFile,
  parseEpisode,
  parseSeasonFolder,
  parseSubtitleSuffix,
  parseTitle,
} from '../../../src/services/media/metadata/naming.js';

describe('movie names', () => {
  it.each([
    ['Heat (1995)', 'Heat', 1995],
    ['Heat (1995) - 1080p', 'Heat', 1995],
    ['The.Matrix.1999.1080p.BluRay.x264-GRP', 'The Matrix', 1999],
    ['Blade.Runner.2049.2017.2160p.UHD.BluRay.x265-TERMiNAL', 'Blade Runner 2049', 2017],
    ['1917.2019.1080p.WEB-DL.DDP5.1.H264', '1917', 2019],
    ['2001 A Space Odyssey (1968)', '2001 A Space Odyssey', 1968],
    ['Mr. Nobody (2009)', 'Mr. Nobody', 2009],
    ['Some_Movie_2004_720p_HDTV', 'Some Movie', 2004],
    ['Amelie', 'Amelie', null],
    ['Inception.REPACK.1080p', 'Inception', null],
  ])('%s → %s (%s)', (name, title, year) => {
    expect(parseTitle(name)).toMatchObject({ title, year });
  });

  it('reads id tags and keeps them out of the title', () => {
    expect(parseTitle('Arrival (2016) [imdbid-tt2543164]')).toEqual({
      title: 'Arrival',
      year: 2016,
      imdbId: 'tt2543164',
      tmdbId: null,
    });
    expect(parseTitle('Arrival (2016) {tmdb-329865}')).toMatchObject({ title: 'Arrival', tmdbId: '329865' });
    expect(parseTitle('Heat [tmdbid-949] (1995)')).toMatchObject({
      title: 'Heat',
      year: 1995,
      tmdbId: '949',
    });
  });
});

describe('episode names', () => {
  it.each([
    ['Show - S01E02 - Name', 1, 2, null, 'Show', 'Name'],
    ['Show.S01E02.The.Name.720p.HDTV.x264-GRP', 1, 2, null, 'Show', 'The Name'],
    ['Show - S02E01-E02 - Double', 2, 1, 2, 'Show', 'Double'],
    ['Show.S02E01E02.720p', 2, 1, 2, 'Show', null],
    ['Show - S01E01-02 - Two', 1, 1, 2, 'Show', 'Two'],
    ['show 1x02 name', 1, 2, null, 'show', 'name'],
    ['Show - 3x10-3x11', 3, 10, 11, 'Show', null],
    ['Show - S00E01 - Special', 0, 1, null, 'Show', 'Special'],
    ['S01E05', 1, 5, null, null, null],
  ])('%s', (name, season, episode, end, series, episodeName) => {
    expect(parseEpisode(name, false)).toEqual({
      seasonNumber: season,
      episodeNumber: episode,
      episodeNumberEnd: end,
      seriesPart: series,
      episodeName,
    });
  });

  it('does not take resolutions or years for episode numbers', () => {
    expect(parseEpisode('Movie.2010.1920x1080', false)).toBeNull();
    expect(parseEpisode('Heat (1995)', false)).toBeNull();
    expect(parseEpisode('Show - S01E01-1080p', false)).toMatchObject({ episodeNumberEnd: null });
  });

  it('reads episode-only names inside a season folder only', () => {
    expect(parseEpisode('E03 - Name', false)).toBeNull();
    expect(parseEpisode('E03 - Name', true)).toMatchObject({
      seasonNumber: null,
      episodeNumber: 3,
      episodeName: 'Name',
    });
    expect(parseEpisode('Episode 4', true)).toMatchObject({ episodeNumber: 4 });
    expect(parseEpisode('07 - Lucky', true)).toMatchObject({ episodeNumber: 7, episodeName: 'Lucky' });
  });

  it('recognises season folders', () => {
    expect(parseSeasonFolder('Season 01')).toBe(1);
    expect(parseSeasonFolder('season 12')).toBe(12);
    expect(parseSeasonFolder('S03')).toBe(3);
    expect(parseSeasonFolder('Specials')).toBe(0);
    expect(parseSeasonFolder('Season 00')).toBe(0);
    expect(parseSeasonFolder('Show (2020)')).toBeNull();
  });
});

describe('what is skipped', () => {
  it('allows video extensions only', () => {
    expect(isVideoFile('a.mkv')).toBe(true);
    expect(isVideoFile('a.MP4')).toBe(true);
    expect(isVideoFile('a.mkv.part')).toBe(false);
    expect(isVideoFile('a.nfo')).toBe(false);
    expect(isVideoFile('a.srt')).toBe(false);
  });

  it('skips samples, trailers, extras, hidden and temp files', () => {
    for (const name of [
      'Heat-trailer.mkv',
      'heat.sample.mkv',
      'sample.mkv',
      'Heat-featurette.mp4',
      '.hidden.mkv',
      '~lock.mkv',
    ]) {
      expect(isSkippedFile(name), name).toBe(true);
    }
    for (const name of ['Heat (1995).mkv', 'The Sample Movie (2001).mkv', 'Trailer Park Boys - S01E01.mkv']) {
      expect(isSkippedFile(name), name).toBe(false);
    }
    for (const folder of ['Sample', 'Trailers', 'Extras', 'Behind The Scenes', '@eaDir', '.stfolder']) {
      expect(isSkippedFolder(folder), folder).toBe(true);
    }
    expect(isSkippedFolder('Season 01')).toBe(false);
  });

  it('reads subtitle suffixes', () => {
    expect(parseSubtitleSuffix('en')).toEqual({
      language: 'en',
      forced: false,
      default: false,
      hearingImpaired: false,
    });
    expect(parseSubtitleSuffix('eng.forced')).toMatchObject({ language: 'eng', forced: true });
    expect(parseSubtitleSuffix('pt-br.sdh.default')).toMatchObject({
      language: 'pt-br',
      hearingImpaired: true,
      default: true,
    });
    expect(parseSubtitleSuffix('')).toMatchObject({ language: null });
  });
});
