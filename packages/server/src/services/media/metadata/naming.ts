/**
 * Recognition of real-world media file and folder names (pure functions, no I/O):
 * movies `Title (Year)`, `Title.Year.1080p.BluRay.x264-GRP`, `[imdbid-tt…]`/`[tmdbid-…]` tags; episodes
 * `S01E02`, `S01E01-E02`, `1x02`, `E02` inside a season folder; season folders `Season 01`, `Specials`.
 */

/** Video containers a scan looks at; anything else is not a video (temp files such as .part included). */
export const VIDEO_EXTENSIONS: ReadonlySet<string> = new Set([
  '3gp',
  'avi',
  'divx',
  'flv',
  'm2ts',
  'm4v',
  'mkv',
  'mov',
  'mp4',
  'mpeg',
  'mpg',
  'mts',
  'ogm',
  'ogv',
  'rm',
  'rmvb',
  'ts',
  'vob',
  'webm',
  'wmv',
]);
export const SUBTITLE_EXTENSIONS: ReadonlySet<string> = new Set(['srt', 'ass', 'ssa', 'vtt']);
export const IMAGE_EXTENSIONS: ReadonlySet<string> = new Set(['jpg', 'jpeg', 'png', 'webp']);
export const SIDECAR_EXTENSIONS: ReadonlySet<string> = new Set([
  'nfo',
  ...SUBTITLE_EXTENSIONS,
  ...IMAGE_EXTENSIONS,
]);

/** Folders whose content is never a library item (extras, samples, system folders of NAS devices). */
const SKIPPED_FOLDERS: ReadonlySet<string> = new Set([
  'sample',
  'samples',
  'trailer',
  'trailers',
  'extra',
  'extras',
  'featurette',
  'featurettes',
  'behind the scenes',
  'behindthescenes',
  'deleted scenes',
  'deleted',
  'interview',
  'interviews',
  'scene',
  'scenes',
  'short',
  'shorts',
  'other',
  'others',
  'bonus',
  'bonus features',
  'subs',
  'subtitles',
  '@eadir',
  '#recycle',
  '#snapshot',
  '$recycle.bin',
  'lost+found',
  'system volume information',
]);

/** Name suffixes of extras kept next to the main file (`Heat-trailer.mkv`, `heat.sample.mkv`). */
const EXTRA_SUFFIX =
  /[ ._-](sample|trailer|featurette|behindthescenes|deleted|deletedscene|interview|scene|short|extra|other|clip)\d*$/i;
const EXTRA_PREFIX = /^(sample|trailer)(\d*|[-_].*)$/i;

export function splitName(fileName: string): { base: string; ext: string } {
  const dot = fileName.lastIndexOf('.');
  if (dot <= 0) return { base: fileName, ext: '' };
  return { base: fileName.slice(0, dot), ext: fileName.slice(dot + 1).toLowerCase() };
}

export function isVideoFile(fileName: string): boolean {
  return VIDEO_EXTENSIONS.has(splitName(fileName).ext);
}

export function isSkippedFolder(name: string): boolean {
  return name.startsWith('.') || SKIPPED_FOLDERS.has(name.toLowerCase());
}

/** Hidden, temporary and extra files (samples, trailers) that are never items. */
export function isSkippedFile(fileName: string): boolean {
  if (fileName.startsWith('.') || fileName.startsWith('~')) return true;
  const { base } = splitName(fileName);
  return EXTRA_SUFFIX.test(base) || EXTRA_PREFIX.test(base);
}

export interface ParsedTitle {
  title: string;
  year: number | null;
  tmdbId: string | null;
  imdbId: string | null;
}

const IMDB_TAG = /[[{(]\s*(?:imdb(?:id)?\s*[-=: ]\s*)?(tt\d{5,10})\s*[\]})]/i;
const TMDB_TAG = /[[{(]\s*tmdb(?:id)?\s*[-=: ]\s*(\d{1,10})\s*[\]})]/i;
/** Release tags that end the title of a scene-style name. */
const JUNK_TOKEN =
  /^(2160p|1440p|1080p|1080i|720p|576p|480p|4k|8k|uhd|hdr|hdr10|hdr10\+|dv|dovi|sdr|bluray|blu-ray|bdrip|brrip|bdremux|remux|bd|web|web-dl|webdl|webrip|hdtv|hdrip|dvdrip|dvd|dvdscr|hdcam|cam|ts|x264|x265|h264|h265|hevc|avc|xvid|divx|av1|vp9|aac|aac2|ac3|eac3|dts|dts-hd|dd5|ddp5|ddp|truehd|atmos|flac|10bit|8bit|proper|repack|extended|unrated|uncut|remastered|directors|dc|imax|multi|dual|subbed|dubbed|complete|internal|limited)$/i;

const isYear = (value: string): boolean => {
  if (!/^\d{4}$/.test(value)) return false;
  const year = Number(value);
  return year >= 1880 && year <= 2100;
};

/** Tidies a title taken out of a name: separators to spaces, no dangling dashes or brackets. */
export function cleanTitle(raw: string): string {
  return raw
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/[_]+/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/^[\s\-–.,:]+|[\s\-–.,:(]+$/g, '')
    .trim();
}

/**
 * Title, year and id tags of a movie or series name (file name without extension or folder name):
 * `Heat (1995)`, `Heat (1995) [imdbid-tt0113277]`, `The.Matrix.1999.1080p.BluRay.x264-GRP`, `Show`.
 */
export function parseTitle(name: string): ParsedTitle {
  let rest = name;
  const imdb = IMDB_TAG.exec(rest);
  if (imdb) rest = rest.replace(imdb[0], ' ');
  const tmdb = TMDB_TAG.exec(rest);
  if (tmdb) rest = rest.replace(tmdb[0], ' ');
  rest = rest.replace(/\[[^\]]*\]|\{[^}]*\}/g, ' ').trim();
  const ids = { imdbId: imdb?.[1]?.toLowerCase() ?? null, tmdbId: tmdb?.[1] ?? null };

  const withYear = /^(.*?)[\s._-]*\((\d{4})\)/.exec(rest);
  if (withYear && isYear(withYear[2]!) && cleanTitle(withYear[1]!).length > 0) {
    return { title: cleanTitle(withYear[1]!), year: Number(withYear[2]), ...ids };
  }

  // Scene style: split into tokens (on dots too when the name has no spaces), stop at the first release tag.
  const tokens = (/\s/.test(rest) ? rest.split(/[\s_]+/) : rest.split(/[._\s]+/)).filter(Boolean);
  let end = tokens.findIndex((token, index) => index > 0 && JUNK_TOKEN.test(token.split('-')[0] ?? token));
  if (end < 0) end = tokens.length;
  let yearAt = -1;
  for (let i = 1; i < end; i++) {
    if (isYear(tokens[i]!.replace(/^[([]|[)\]]$/g, ''))) yearAt = i;
  }
  const titleTokens = tokens.slice(0, yearAt > 0 ? yearAt : end);
  const title = cleanTitle(titleTokens.join(' ')) || cleanTitle(rest) || name;
  const year = yearAt > 0 ? Number(tokens[yearAt]!.replace(/^[([]|[)\]]$/g, '')) : null;
  return { title, year, ...ids };
}

/** Season number of a season folder (`Season 01`, `Season 1`, `S01`, `Specials` = 0), else null. */
export function parseSeasonFolder(name: string): number | null {
  if (/^specials?$/i.test(name.trim())) return 0;
  const match = /^(?:season|series|staffel|saison|temporada|s)[ ._-]*(\d{1,4})$/i.exec(name.trim());
  return match ? Number(match[1]) : null;
}

export interface ParsedEpisode {
  /** Null when the name carries only an episode number (season from the folder). */
  seasonNumber: number | null;
  episodeNumber: number;
  /** Last episode of a multi-episode file, else null. */
  episodeNumberEnd: number | null;
  /** The series as named before the episode marker (`Show (2020)`), else null. */
  seriesPart: string | null;
  /** The episode's own name after the marker, else null. */
  episodeName: string | null;
}

const SEASON_EPISODE = /(?<![a-z0-9])s(\d{1,4})[ ._-]?e(\d{1,4})(?!\d)/i;
const MORE_EPISODES = /^(?:[ ._-]?-?[ ._-]?e(\d{1,4})(?!\d))+/i;
const RANGE_END = /^-(\d{1,4})(?![\dpi])/i;
const CROSS = /(?<![a-z0-9])(\d{1,2})x(\d{2,3})(?![a-z0-9])/i;
const CROSS_MORE = /^(?:-(?:\d{1,2}x)?(\d{2,3})(?![a-z0-9]))+/i;
const EPISODE_ONLY = /(?<![a-z0-9])(?:e|ep|episode)[ ._-]?(\d{1,4})(?![a-z0-9])/i;
const LEADING_NUMBER = /^(\d{1,3})(?=$|[ ._-])/;

/** The name after an episode marker, up to the first release tag of a scene-style name. */
function episodeNameFrom(rest: string): string | null {
  const trimmed = rest.replace(/^[\s._-]+/, '');
  if (!trimmed) return null;
  const tokens = (/\s/.test(trimmed) ? trimmed.split(/\s+/) : trimmed.split(/[._]+/)).filter(Boolean);
  const end = tokens.findIndex((token) => JUNK_TOKEN.test(token.split('-')[0] ?? token));
  const name = cleanTitle(tokens.slice(0, end < 0 ? tokens.length : end).join(' '));
  return name.length > 0 ? name : null;
}

function seriesPartFrom(before: string): string | null {
  const part = before.replace(/[\s._-]+$/, '').trim();
  return part.length > 0 ? part : null;
}

/**
 * Episode numbers of a file name without extension: `Show - S01E02 - Name`, `Show.S01E01E02.720p`,
 * `S01E01-E02`, `1x02`, and — only when inSeasonFolder — `E02`/`Episode 2`/`02 - Name`.
 */
export function parseEpisode(base: string, inSeasonFolder: boolean): ParsedEpisode | null {
  const se = SEASON_EPISODE.exec(base);
  if (se) {
    const after = base.slice(se.index + se[0].length);
    let end: number | null = null;
    let consumed = 0;
    const more = MORE_EPISODES.exec(after);
    if (more) {
      const numbers = [...more[0].matchAll(/e(\d{1,4})/gi)].map((m) => Number(m[1]));
      end = numbers.at(-1) ?? null;
      consumed = more[0].length;
    } else {
      const range = RANGE_END.exec(after);
      if (range) {
        end = Number(range[1]);
        consumed = range[0].length;
      }
    }
    const first = Number(se[2]);
    return {
      seasonNumber: Number(se[1]),
      episodeNumber: first,
      episodeNumberEnd: end !== null && end > first ? end : null,
      seriesPart: seriesPartFrom(base.slice(0, se.index)),
      episodeName: episodeNameFrom(after.slice(consumed)),
    };
  }
  const cross = CROSS.exec(base);
  if (cross) {
    const after = base.slice(cross.index + cross[0].length);
    const more = CROSS_MORE.exec(after);
    const numbers = more ? [...more[0].matchAll(/(\d{2,3})(?=-|$)/g)].map((m) => Number(m[1])) : [];
    const first = Number(cross[2]);
    const end = numbers.at(-1) ?? null;
    return {
      seasonNumber: Number(cross[1]),
      episodeNumber: first,
      episodeNumberEnd: end !== null && end > first ? end : null,
      seriesPart: seriesPartFrom(base.slice(0, cross.index)),
      episodeName: episodeNameFrom(after.slice(more?.[0].length ?? 0)),
    };
  }
  if (!inSeasonFolder) return null;
  const only = EPISODE_ONLY.exec(base);
  if (only) {
    return {
      seasonNumber: null,
      episodeNumber: Number(only[1]),
      episodeNumberEnd: null,
      seriesPart: seriesPartFrom(base.slice(0, only.index)),
      episodeName: episodeNameFrom(base.slice(only.index + only[0].length)),
    };
  }
  const leading = LEADING_NUMBER.exec(base);
  if (leading) {
    return {
      seasonNumber: null,
      episodeNumber: Number(leading[1]),
      episodeNumberEnd: null,
      seriesPart: null,
      episodeName: episodeNameFrom(base.slice(leading[0].length)),
    };
  }
  return null;
}

/** Key for sorting titles: lower case, leading articles moved away. */
export function sortTitle(title: string): string {
  return title
    .toLowerCase()
    .replace(/^(the|a|an)\s+/, '')
    .trim();
}

/** Subtitle file details from its name relative to the video's base name (`.en`, `.en.forced`, `.eng.sdh`). */
export function parseSubtitleSuffix(suffix: string): {
  language: string | null;
  forced: boolean;
  default: boolean;
  hearingImpaired: boolean;
} {
  const parts = suffix
    .split('.')
    .map((part) => part.trim().toLowerCase())
    .filter(Boolean);
  let language: string | null = null;
  let forced = false;
  let isDefault = false;
  let hearingImpaired = false;
  for (const part of parts) {
    if (part === 'forced' || part === 'foreign') forced = true;
    else if (part === 'default') isDefault = true;
    else if (part === 'sdh' || part === 'hi' || part === 'cc') hearingImpaired = true;
    else if (language === null && /^[a-z]{2,3}(-[a-z0-9]{2,4})?$/.test(part)) language = part;
  }
  return { language, forced, default: isDefault, hearingImpaired };
}
