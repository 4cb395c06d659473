import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Real media for the media suites, made with ffmpeg (small and fast: a few seconds of testsrc + sine at
 * 160x120), plus a synthetic tree of 10,000 empty or tiny files with realistic names. Generated once per
 * version (and content of the plan below) into the temp folder and reused by every suite and run; the
 * manifest says what was made so tests compare scan results with it.
 *
 * Layout of `library` (one storage mount):
 *   Movies/Heat (1995)/…                         MP4 with the moov atom at the head, movie.nfo, poster, fanart
 *   Movies/The.Matrix.1999.1080p.BluRay.x264-GRP.mp4   MP4 with the moov atom at the end, no .nfo
 *   Movies/Arrival (2016) [imdbid-tt2543164]/…  MKV with two audio tracks and an external .en.srt
 *   TV/Show (2020)/…                            tvshow.nfo, artwork, Season 01, Season 02 (S02E01-E02), Specials
 * Layout of `synthetic`: Movies/Title NNNN (YEAR)/… (video, .nfo, poster) and TV/Series NN (YEAR)/Season N/…
 */

const run = promisify(execFile);

export const MEDIA_FIXTURES_VERSION = 'media-fixtures-v1';

export interface FixtureStreams {
  video: number;
  audio: number;
  subtitle: number;
  audioLanguages: string[];
}

export interface FixtureNfo {
  title: string;
  originalTitle?: string;
  year?: number;
  releaseDate?: string;
  plot: string;
  tmdbId?: string;
  imdbId?: string;
}

export interface FixtureMovie {
  /** The title a scan should report (the .nfo's, the provider's, or from the name). */
  title: string;
  year: number;
  /** Path of the video inside the mount, leading '/'. */
  file: string;
  /** ffprobe's format name starts with this. */
  container: 'mov' | 'matroska';
  /** MP4 only: where the moov atom is. */
  moov?: 'head' | 'end';
  durationSeconds: number;
  streams: FixtureStreams;
  nfo: FixtureNfo | null;
  poster: string | null;
  fanart: string | null;
  subtitles: { path: string; language: string }[];
}

export interface FixtureEpisode {
  seasonNumber: number;
  episodeNumber: number;
  episodeNumberEnd: number | null;
  /** The name a scan should report (from the episode .nfo, else from the file name). */
  name: string;
  file: string;
  durationSeconds: number;
  streams: FixtureStreams;
  nfo: FixtureNfo | null;
  thumb: string | null;
}

export interface FixtureSeries {
  title: string;
  year: number;
  folder: string;
  nfo: FixtureNfo;
  poster: string;
  fanart: string;
  seasonPosters: Record<number, string>;
  seasons: { seasonNumber: number; folder: string; episodes: FixtureEpisode[] }[];
}

export interface MediaFixtures {
  version: string;
  /** Folder holding `library` and `synthetic`; read-only for tests (copy before changing anything). */
  root: string;
  /** The real media tree (a mount root). */
  library: string;
  movies: FixtureMovie[];
  series: FixtureSeries[];
  /** Files (inside the mount) that a scan must not turn into items: samples, trailers, partial downloads. */
  ignored: string[];
  /** Any small MKV of the set, to copy when a test needs another video. */
  spareVideo: string;
  synthetic: {
    /** The synthetic tree (a mount root). */
    root: string;
    movies: number;
    series: number;
    seasonsPerSeries: number;
    episodesPerSeason: number;
    /** Every file in the tree. */
    files: number;
  };
}

const HEAT_NFO: FixtureNfo = {
  title: 'Heat',
  originalTitle: 'Heat',
  year: 1995,
  releaseDate: '1995-12-15',
  plot: 'NFO plot: a group of professional bank robbers and the detective who hunts them.',
  tmdbId: '949',
  imdbId: 'tt0113277',
};
const SHOW_NFO: FixtureNfo = {
  title: 'Show',
  originalTitle: 'The Show',
  year: 2020,
  releaseDate: '2020-03-01',
  plot: 'NFO plot of the show.',
  tmdbId: '90001',
  imdbId: 'tt9000001',
};
const PILOT_NFO: FixtureNfo = {
  title: 'Pilot (from nfo)',
  releaseDate: '2020-03-01',
  plot: 'NFO plot of the pilot.',
};

const oneTrack = (language: string): FixtureStreams => ({
  video: 1,
  audio: 1,
  subtitle: 0,
  audioLanguages: [language],
});

/** The plan of the real media set; its hash is part of the cache key. */
function plan(): Pick<MediaFixtures, 'movies' | 'series' | 'ignored' | 'spareVideo'> {
  const heat = '/Movies/Heat (1995)';
  const arrival = '/Movies/Arrival (2016) [imdbid-tt2543164]';
  const show = '/TV/Show (2020)';
  const episode = (
    season: number,
    folder: string,
    file: string,
    numbers: [number, number | null],
    name: string,
    durationSeconds: number,
    extra: Partial<FixtureEpisode> = {},
  ): FixtureEpisode => ({
    seasonNumber: season,
    episodeNumber: numbers[0],
    episodeNumberEnd: numbers[1],
    name,
    file: `${show}/${folder}/${file}`,
    durationSeconds,
    streams: oneTrack('eng'),
    nfo: null,
    thumb: null,
    ...extra,
  });
  return {
    movies: [
      {
        title: 'Heat',
        year: 1995,
        file: `${heat}/Heat (1995).mp4`,
        container: 'mov',
        moov: 'head',
        durationSeconds: 3,
        streams: oneTrack('eng'),
        nfo: HEAT_NFO,
        poster: `${heat}/poster.jpg`,
        fanart: `${heat}/fanart.jpg`,
        subtitles: [],
      },
      {
        title: 'The Matrix',
        year: 1999,
        file: '/Movies/The.Matrix.1999.1080p.BluRay.x264-GRP.mp4',
        container: 'mov',
        moov: 'end',
        durationSeconds: 2,
        streams: oneTrack('eng'),
        nfo: null,
        poster: null,
        fanart: null,
        subtitles: [],
      },
      {
        title: 'Arrival',
        year: 2016,
        file: `${arrival}/Arrival (2016) [imdbid-tt2543164].mkv`,
        container: 'matroska',
        durationSeconds: 4,
        streams: { video: 1, audio: 2, subtitle: 0, audioLanguages: ['eng', 'fre'] },
        nfo: null,
        poster: `${arrival}/Arrival (2016) [imdbid-tt2543164]-poster.jpg`,
        fanart: null,
        subtitles: [{ path: `${arrival}/Arrival (2016) [imdbid-tt2543164].en.srt`, language: 'en' }],
      },
    ],
    series: [
      {
        title: 'Show',
        year: 2020,
        folder: show,
        nfo: SHOW_NFO,
        poster: `${show}/poster.jpg`,
        fanart: `${show}/fanart.jpg`,
        seasonPosters: { 1: `${show}/season01-poster.jpg` },
        seasons: [
          {
            seasonNumber: 0,
            folder: `${show}/Specials`,
            episodes: [
              episode(0, 'Specials', 'Show - S00E01 - Behind the Show.mkv', [1, null], 'Behind the Show', 2),
            ],
          },
          {
            seasonNumber: 1,
            folder: `${show}/Season 01`,
            episodes: [
              episode(1, 'Season 01', 'Show - S01E01 - Pilot.mkv', [1, null], PILOT_NFO.title, 2, {
                nfo: PILOT_NFO,
                thumb: `${show}/Season 01/Show - S01E01 - Pilot-thumb.jpg`,
              }),
              episode(1, 'Season 01', 'Show - S01E02 - The Second.mkv', [2, null], 'The Second', 3),
            ],
          },
          {
            seasonNumber: 2,
            folder: `${show}/Season 02`,
            episodes: [episode(2, 'Season 02', 'Show - S02E01-E02 - Double.mkv', [1, 2], 'Double', 2)],
          },
        ],
      },
    ],
    ignored: [
      `${heat}/Heat (1995)-trailer.mp4`,
      `${heat}/Sample/heat-sample.mp4`,
      '/Movies/incoming.mkv.part',
      `${show}/Season 01/.Show - S01E03.mkv`,
    ],
    spareVideo: `${show}/Season 01/Show - S01E02 - The Second.mkv`,
  };
}

const SYNTHETIC = { movies: 2_000, series: 50, seasonsPerSeries: 4, episodesPerSeason: 20 };

function nfoXml(root: 'movie' | 'tvshow' | 'episodedetails', nfo: FixtureNfo): string {
  const escape = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const lines = [`<?xml version="1.0" encoding="UTF-8" standalone="yes" ?>`, `<${root}>`];
  lines.push(`  <title>${escape(nfo.title)}</title>`);
  if (nfo.originalTitle) lines.push(`  <originaltitle>${escape(nfo.originalTitle)}</originaltitle>`);
  if (nfo.year) lines.push(`  <year>${nfo.year}</year>`);
  if (nfo.releaseDate)
    lines.push(
      `  <${root === 'episodedetails' ? 'aired' : 'premiered'}>${nfo.releaseDate}</${root === 'episodedetails' ? 'aired' : 'premiered'}>`,
    );
  lines.push(`  <plot>${escape(nfo.plot)}</plot>`);
  if (nfo.tmdbId) lines.push(`  <uniqueid type="tmdb" default="true">${nfo.tmdbId}</uniqueid>`);
  if (nfo.imdbId) lines.push(`  <uniqueid type="imdb">${nfo.imdbId}</uniqueid>`);
  lines.push(`</${root}>`, '');
  return lines.join('\n');
}

async function ffmpeg(args: string[]): Promise<void> {
  await run('ffmpeg', ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args], { timeout: 60_000 });
}

/**
 * A test video: testsrc picture and one sine tone per audio language; optionally (MKV) chapter marks and
 * an embedded SubRip track.
 */
export async function makeVideo(
  file: string,
  options: {
    seconds: number;
    languages: string[];
    format: 'mp4' | 'mkv';
    moov?: 'head' | 'end';
    chapters?: { startSeconds: number; title: string }[];
    embeddedSubtitleLanguage?: string;
  },
): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const args = ['-f', 'lavfi', '-i', `testsrc=size=160x120:rate=10:duration=${options.seconds}`];
  options.languages.forEach((_, index) => {
    args.push(
      '-f',
      'lavfi',
      '-i',
      `sine=frequency=${440 + index * 220}:sample_rate=22050:duration=${options.seconds}`,
    );
  });
  const extras = await extraInputs(file, options);
  try {
    let input = options.languages.length + 1;
    const subtitleInput = extras.subtitle ? input++ : null;
    const chaptersInput = extras.chapters ? input++ : null;
    if (extras.subtitle) args.push('-i', extras.subtitle);
    if (extras.chapters) args.push('-i', extras.chapters);
    args.push('-map', '0:v');
    options.languages.forEach((_, index) => args.push('-map', `${index + 1}:a`));
    if (subtitleInput !== null) args.push('-map', `${subtitleInput}:s`, '-c:s', 'srt');
    if (subtitleInput !== null && options.embeddedSubtitleLanguage)
      args.push('-metadata:s:s:0', `language=${options.embeddedSubtitleLanguage}`);
    if (chaptersInput !== null) args.push('-map_chapters', String(chaptersInput));
    args.push('-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '10');
    args.push('-c:a', 'aac', '-b:a', '32k', '-ac', '1');
    options.languages.forEach((language, index) =>
      args.push(`-metadata:s:a:${index}`, `language=${language}`),
    );
    if (options.format === 'mp4' && options.moov === 'head') args.push('-movflags', '+faststart');
    args.push('-t', String(options.seconds), file);
    await ffmpeg(args);
  } finally {
    const written = [extras.subtitle, extras.chapters].filter(
      (extra): extra is string => extra !== undefined,
    );
    await Promise.all(written.map((extra) => rm(extra, { force: true })));
  }
}

/** The SubRip and FFMETADATA inputs of `makeVideo`, written next to the video (removed after). */
async function extraInputs(
  file: string,
  options: {
    seconds: number;
    chapters?: { startSeconds: number; title: string }[];
    embeddedSubtitleLanguage?: string;
  },
): Promise<{ subtitle?: string; chapters?: string }> {
  const extras: { subtitle?: string; chapters?: string } = {};
  if (options.embeddedSubtitleLanguage) {
    extras.subtitle = `${file}.input.srt`;
    await writeFile(extras.subtitle, '1\n00:00:00,500 --> 00:00:02,000\nEmbedded line\n');
  }
  if (options.chapters?.length) {
    extras.chapters = `${file}.chapters.txt`;
    const ends = [...options.chapters.slice(1).map((chapter) => chapter.startSeconds), options.seconds];
    const blocks = options.chapters.map(
      (chapter, index) =>
        `[CHAPTER]\nTIMEBASE=1/1000\nSTART=${Math.round(chapter.startSeconds * 1000)}\nEND=${Math.round(ends[index]! * 1000)}\ntitle=${chapter.title}\n`,
    );
    await writeFile(extras.chapters, `;FFMETADATA1\n${blocks.join('')}`);
  }
  return extras;
}

async function makeJpeg(file: string, size: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await ffmpeg(['-f', 'lavfi', '-i', `testsrc=size=${size}:rate=1`, '-frames:v', '1', '-q:v', '5', file]);
}

/** Top-level atom types of an MP4 file in order (to check where moov is). */
export async function mp4TopLevelAtoms(file: string): Promise<string[]> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const atoms: string[] = [];
    let offset = 0;
    const header = Buffer.alloc(16);
    while (offset + 8 <= size) {
      await handle.read(header, 0, 16, offset);
      let length = header.readUInt32BE(0);
      const type = header.toString('latin1', 4, 8);
      if (length === 1) length = Number(header.readBigUInt64BE(8));
      if (length === 0) length = size - offset;
      if (length < 8) break;
      atoms.push(type);
      offset += length;
    }
    return atoms;
  } finally {
    await handle.close();
  }
}

async function generateLibrary(root: string, manifest: ReturnType<typeof plan>): Promise<void> {
  const at = (inside: string) => path.join(root, ...inside.split('/'));
  const jobs: Promise<void>[] = [];
  for (const movie of manifest.movies) {
    jobs.push(
      makeVideo(at(movie.file), {
        seconds: movie.durationSeconds,
        languages: movie.streams.audioLanguages,
        format: movie.container === 'mov' ? 'mp4' : 'mkv',
        moov: movie.moov,
      }),
    );
    if (movie.poster) jobs.push(makeJpeg(at(movie.poster), '120x180'));
    if (movie.fanart) jobs.push(makeJpeg(at(movie.fanart), '320x180'));
    for (const subtitle of movie.subtitles) {
      jobs.push(
        mkdir(path.dirname(at(subtitle.path)), { recursive: true }).then(() =>
          writeFile(
            at(subtitle.path),
            '1\n00:00:00,000 --> 00:00:01,500\nHello.\n\n2\n00:00:02,000 --> 00:00:03,000\nBye.\n',
          ),
        ),
      );
    }
    if (movie.nfo) {
      const nfo = path.join(path.dirname(at(movie.file)), 'movie.nfo');
      jobs.push(
        mkdir(path.dirname(nfo), { recursive: true }).then(() => writeFile(nfo, nfoXml('movie', movie.nfo!))),
      );
    }
  }
  for (const series of manifest.series) {
    await mkdir(at(series.folder), { recursive: true });
    jobs.push(writeFile(path.join(at(series.folder), 'tvshow.nfo'), nfoXml('tvshow', series.nfo)));
    jobs.push(makeJpeg(at(series.poster), '120x180'), makeJpeg(at(series.fanart), '320x180'));
    for (const poster of Object.values(series.seasonPosters)) jobs.push(makeJpeg(at(poster), '120x180'));
    for (const season of series.seasons) {
      for (const episode of season.episodes) {
        jobs.push(
          makeVideo(at(episode.file), {
            seconds: episode.durationSeconds,
            languages: episode.streams.audioLanguages,
            format: 'mkv',
          }),
        );
        if (episode.thumb) jobs.push(makeJpeg(at(episode.thumb), '160x90'));
        if (episode.nfo) {
          const nfo = at(episode.file).replace(/\.mkv$/, '.nfo');
          jobs.push(writeFile(nfo, nfoXml('episodedetails', episode.nfo)));
        }
      }
    }
  }
  // Run ffmpeg a few at a time.
  await Promise.all(jobs.splice(0));
  // Files a scan must skip: copies of a real video under extra names, a partial download, a hidden file.
  const tiny = await readFile(at(manifest.spareVideo));
  for (const ignored of manifest.ignored) {
    await mkdir(path.dirname(at(ignored)), { recursive: true });
    await writeFile(at(ignored), tiny);
  }
}

async function generateSynthetic(root: string): Promise<number> {
  let files = 0;
  const writes: (() => Promise<void>)[] = [];
  for (let i = 1; i <= SYNTHETIC.movies; i++) {
    const year = 1950 + (i % 70);
    const name = `Title ${String(i).padStart(4, '0')} (${year})`;
    const folder = path.join(root, 'Movies', name);
    writes.push(async () => {
      await mkdir(folder, { recursive: true });
      await writeFile(path.join(folder, `${name}.mkv`), '');
      await writeFile(
        path.join(folder, 'movie.nfo'),
        nfoXml('movie', { title: `Title ${i}`, year, plot: `Synthetic movie ${i}.` }),
      );
      await writeFile(path.join(folder, 'poster.jpg'), '');
    });
    files += 3;
  }
  for (let s = 1; s <= SYNTHETIC.series; s++) {
    const show = `Series ${String(s).padStart(2, '0')} (${2000 + s})`;
    for (let season = 1; season <= SYNTHETIC.seasonsPerSeries; season++) {
      const folder = path.join(root, 'TV', show, `Season ${String(season).padStart(2, '0')}`);
      writes.push(async () => {
        await mkdir(folder, { recursive: true });
        for (let e = 1; e <= SYNTHETIC.episodesPerSeason; e++) {
          const code = `S${String(season).padStart(2, '0')}E${String(e).padStart(2, '0')}`;
          await writeFile(path.join(folder, `Series ${s}.${code}.Episode.Name.720p.WEB-DL.x264.mkv`), '');
        }
      });
      files += SYNTHETIC.episodesPerSeason;
    }
  }
  for (let start = 0; start < writes.length; start += 64) {
    await Promise.all(writes.slice(start, start + 64).map((write) => write()));
  }
  return files;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let pending: Promise<MediaFixtures> | undefined;

/** The generated fixtures, made on first use (once per version, shared by parallel suites through a lock). */
export function mediaFixtures(): Promise<MediaFixtures> {
  return (pending ??= loadOrGenerate());
}

async function loadOrGenerate(): Promise<MediaFixtures> {
  const manifestPlan = plan();
  const key = createHash('sha256')
    .update(JSON.stringify({ manifestPlan, SYNTHETIC, version: MEDIA_FIXTURES_VERSION }))
    .digest('hex')
    .slice(0, 12);
  const root = path.join(os.tmpdir(), `svc-${MEDIA_FIXTURES_VERSION}-${key}`);
  const manifestFile = path.join(root, 'manifest.json');
  const lock = `${root}.lock`;
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (existsSync(manifestFile)) return JSON.parse(await readFile(manifestFile, 'utf8')) as MediaFixtures;
    try {
      await mkdir(lock);
      await writeFile(path.join(lock, 'pid'), String(process.pid));
    } catch {
      // Another process is generating: wait for it, or take over when it died.
      const holder = Number(await readFile(path.join(lock, 'pid'), 'utf8').catch(() => '0'));
      if (holder > 0 && !isAlive(holder)) await rm(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`media fixtures at ${root} were not generated in time`);
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      if (existsSync(manifestFile)) continue;
      const staging = `${root}.tmp-${process.pid}`;
      await rm(staging, { recursive: true, force: true });
      await generateLibrary(path.join(staging, 'library'), manifestPlan);
      const syntheticFiles = await generateSynthetic(path.join(staging, 'synthetic'));
      const manifest: MediaFixtures = {
        version: MEDIA_FIXTURES_VERSION,
        root,
        library: path.join(root, 'library'),
        ...manifestPlan,
        synthetic: { root: path.join(root, 'synthetic'), ...SYNTHETIC, files: syntheticFiles },
      };
      await writeFile(path.join(staging, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      await rm(root, { recursive: true, force: true });
      await rename(staging, root);
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  }
}
