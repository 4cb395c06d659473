import type { libraryCountsSchema, MediaItemSummary } from '@svc/contracts';
import type { z } from 'zod';

export type LibraryCounts = z.infer<typeof libraryCountsSchema>;

const pad = (value: number) => String(value).padStart(2, '0');

/** S01E02, S01E01-E02 for multi-episode files, S00E01 for specials; '' when the numbers are unknown. */
export function episodeLabel(
  item: Pick<MediaItemSummary, 'seasonNumber' | 'episodeNumber' | 'episodeNumberEnd'>,
): string {
  if (item.episodeNumber === null) return '';
  const season = item.seasonNumber === null ? '' : `S${pad(item.seasonNumber)}`;
  const end =
    item.episodeNumberEnd !== null && item.episodeNumberEnd !== item.episodeNumber
      ? `-E${pad(item.episodeNumberEnd)}`
      : '';
  return `${season}E${pad(item.episodeNumber)}${end}`;
}

/** Bits per second as kbit/s or Mbit/s. */
export function formatBitrate(bitsPerSecond: number | null | undefined): string {
  if (bitsPerSecond === null || bitsPerSecond === undefined || !Number.isFinite(bitsPerSecond)) return '—';
  if (bitsPerSecond >= 1_000_000) return `${(bitsPerSecond / 1_000_000).toFixed(1)} Mbit/s`;
  return `${Math.round(bitsPerSecond / 1000)} kbit/s`;
}

/** The non-zero counters of a library, in a fixed order. */
export function countParts(counts: LibraryCounts): { kind: keyof LibraryCounts; count: number }[] {
  return (['movies', 'series', 'seasons', 'episodes'] as const)
    .map((kind) => ({ kind, count: counts[kind] }))
    .filter((part) => part.count > 0);
}

/** Items at the top of a library: its movies and series. */
export function topLevelCount(counts: LibraryCounts): number {
  return counts.movies + counts.series;
}
