import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** What a Kodi-style .nfo (movie, tvshow, episodedetails) says about an item; absent values are null. */
export interface NfoData {
  root: 'movie' | 'tvshow' | 'episodedetails';
  title: string | null;
  originalTitle: string | null;
  year: number | null;
  releaseDate: string | null;
  plot: string | null;
  tmdbId: string | null;
  imdbId: string | null;
  seasonNumber: number | null;
  episodeNumber: number | null;
}

/** Largest .nfo read; real ones are a few kilobytes. */
export const NFO_MAX_BYTES = 1024 * 1024;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // Only the five predefined entities and character references; DOCTYPEs are refused before parsing.
  processEntities: true,
  htmlEntities: false,
  isArray: (name) => ['uniqueid', 'movie', 'tvshow', 'episodedetails'].includes(name),
});

type Node = Record<string, unknown>;

function text(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() || null;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return text(value[0]);
  if (value && typeof value === 'object' && '#text' in value) return text((value as Node)['#text']);
  return null;
}

function integer(value: unknown): number | null {
  const raw = text(value);
  if (raw === null || !/^-?\d{1,6}$/.test(raw)) return null;
  return Number(raw);
}

function isoDate(value: unknown): string | null {
  const raw = text(value);
  const match = raw ? /^(\d{4})-(\d{2})-(\d{2})/.exec(raw) : null;
  if (!match) return null;
  const date = new Date(`${match[1]}-${match[2]}-${match[3]}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? null : `${match[1]}-${match[2]}-${match[3]}`;
}

const imdbPattern = /^tt\d{5,10}$/;

/**
 * Parses a Kodi .nfo. Returns null when the text is not such a document. Documents with a DOCTYPE (and so
 * with entity declarations) are refused outright: nothing external is ever loaded and nothing expands.
 * Kodi also allows a URL line after the XML and several `<episodedetails>` in one file (multi-episode);
 * the first document of the expected kind is read.
 */
export function parseNfo(content: string, expected?: NfoData['root']): NfoData | null {
  if (content.length > NFO_MAX_BYTES) return null;
  if (/<!DOCTYPE|<!ENTITY/i.test(content)) return null;
  const body = content.replace(/^\uFEFF/, '').replace(/<\?xml[^>]*\?>/gi, '');
  const start = body.search(/<(movie|tvshow|episodedetails)[\s>]/i);
  if (start < 0) return null;
  const document = `<nfo>${body.slice(start).replace(/<\/(movie|tvshow|episodedetails)>[^<]*$/i, '</$1>')}</nfo>`;
  if (XMLValidator.validate(document) !== true) return null;
  let parsed: Node;
  try {
    parsed = parser.parse(document) as Node;
  } catch {
    return null;
  }
  const wrapper = parsed.nfo as Node | undefined;
  if (!wrapper || typeof wrapper !== 'object') return null;
  const roots: NfoData['root'][] = expected ? [expected] : ['movie', 'tvshow', 'episodedetails'];
  for (const root of roots) {
    const list = wrapper[root];
    const node = Array.isArray(list) ? (list[0] as Node | string | undefined) : undefined;
    if (node === undefined) continue;
    return readNode(root, typeof node === 'object' ? node : {});
  }
  return null;
}

function readNode(root: NfoData['root'], node: Node): NfoData {
  let tmdbId: string | null = null;
  let imdbId: string | null = null;
  const uniqueIds = Array.isArray(node.uniqueid) ? (node.uniqueid as unknown[]) : [];
  for (const entry of uniqueIds) {
    const type = entry && typeof entry === 'object' ? (entry as Node)['@_type'] : undefined;
    const kind = typeof type === 'string' ? type.toLowerCase() : '';
    const value = text(entry);
    if (!value) continue;
    if (kind === 'tmdb' && /^\d{1,10}$/.test(value)) tmdbId ??= value;
    if (kind === 'imdb' && imdbPattern.test(value)) imdbId ??= value;
  }
  const tmdbTag = text(node.tmdbid);
  if (!tmdbId && tmdbTag && /^\d{1,10}$/.test(tmdbTag)) tmdbId = tmdbTag;
  const imdbTag = text(node.imdbid) ?? text(node.imdb_id);
  if (!imdbId && imdbTag && imdbPattern.test(imdbTag)) imdbId = imdbTag;
  const legacyId = text(node.id);
  if (!imdbId && legacyId && imdbPattern.test(legacyId)) imdbId = legacyId;

  const releaseDate = isoDate(node.premiered) ?? isoDate(node.releasedate) ?? isoDate(node.aired);
  let year = integer(node.year);
  if (year !== null && (year < 1880 || year > 2100)) year = null;
  if (year === null && releaseDate) year = Number(releaseDate.slice(0, 4));
  return {
    root,
    title: text(node.title),
    originalTitle: text(node.originaltitle),
    year,
    releaseDate,
    plot: text(node.plot) ?? text(node.outline),
    tmdbId,
    imdbId,
    seasonNumber: integer(node.season),
    episodeNumber: integer(node.episode),
  };
}
