import type { PortalEpisode, PortalSeason } from '@svc/contracts';

const pad = (value: number) => String(value).padStart(2, '0');

/** `S01E02`, `S01E01–E02` for a multi-episode file, `E05` without a season, '' without numbers. */
export function episodeCode(
  episode: Pick<PortalEpisode, 'seasonNumber' | 'episodeNumber' | 'episodeNumberEnd'>,
): string {
  if (episode.episodeNumber === null) return '';
  const season = episode.seasonNumber !== null ? `S${pad(episode.seasonNumber)}` : '';
  const end =
    episode.episodeNumberEnd !== null && episode.episodeNumberEnd !== episode.episodeNumber
      ? `–E${pad(episode.episodeNumberEnd)}`
      : '';
  return `${season}E${pad(episode.episodeNumber)}${end}`;
}

/** How a season is titled: specials (season 0) and numbered seasons in the user's language, else its name. */
export type SeasonTitle = { key: 'specials' } | { key: 'seasonNumber'; number: number } | { name: string };

export function seasonTitle(season: Pick<PortalSeason, 'name' | 'seasonNumber'>): SeasonTitle {
  if (season.seasonNumber === 0) return { key: 'specials' };
  if (season.name.trim()) return { name: season.name };
  if (season.seasonNumber !== null) return { key: 'seasonNumber', number: season.seasonNumber };
  return { name: '—' };
}

/** The season a series page opens with: the first regular one (specials are season 0), else the first. */
export function firstSeasonToOpen(
  seasons: readonly Pick<PortalSeason, 'id' | 'seasonNumber'>[],
): string | null {
  return (seasons.find((season) => season.seasonNumber !== 0) ?? seasons[0])?.id ?? null;
}
