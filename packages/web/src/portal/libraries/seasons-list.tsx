import { Accordion, ActionIcon, Group, Stack, Text, Tooltip } from '@mantine/core';
import { IconPhoto, IconPlayerPlay } from '@tabler/icons-react';
import type { PortalEpisode, PortalSeason } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { formatDuration } from '../../i18n/format.js';
import { AuthImage } from './auth-image.js';
import { episodeCode, firstSeasonToOpen, seasonTitle } from './item-labels.js';
import { itemImagePath } from './media-paths.js';

function EpisodeRow({
  episode,
  onPlay,
}: {
  episode: PortalEpisode;
  onPlay: ((episode: PortalEpisode) => void) | null;
}) {
  const { t } = useTranslation('myLibraries');
  const code = episodeCode(episode);
  const thumb = episode.imageTypes.includes('thumb') ? itemImagePath(episode.id, 'thumb') : null;
  return (
    <Group gap="sm" wrap="nowrap" align="flex-start" data-testid="episode" data-episode-id={episode.id}>
      <div style={{ width: 120, flexShrink: 0 }}>
        <AuthImage
          src={thumb}
          ratio={16 / 9}
          alt={episode.name}
          fallback={<IconPhoto size={24} stroke={1.2} color="var(--mantine-color-dimmed)" />}
        />
      </div>
      <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
        <Text size="sm" fw={600}>
          {code ? `${code} · ` : ''}
          {episode.name}
        </Text>
        {episode.runtime !== null && (
          <Text size="xs" c="dimmed">
            {formatDuration(episode.runtime)}
          </Text>
        )}
        {episode.overview && (
          <Text size="xs" c="dimmed" lineClamp={2}>
            {episode.overview}
          </Text>
        )}
      </Stack>
      {onPlay && (
        <Tooltip label={t('play')} withArrow>
          <ActionIcon
            variant="light"
            size="lg"
            onClick={() => onPlay(episode)}
            aria-label={t('playEpisode', { name: code ? `${code} ${episode.name}` : episode.name })}
            data-testid="play-episode"
          >
            <IconPlayerPlay size={18} />
          </ActionIcon>
        </Tooltip>
      )}
    </Group>
  );
}

/**
 * Seasons of a series with their episodes; a play button per episode when the browser may play
 * (`onPlay` null otherwise). The first regular season starts open.
 */
export function SeasonsList({
  seasons,
  onPlay,
}: {
  seasons: PortalSeason[];
  onPlay: ((episode: PortalEpisode) => void) | null;
}) {
  const { t } = useTranslation('myLibraries');
  const title = (season: PortalSeason) => {
    const value = seasonTitle(season);
    if ('name' in value) return value.name;
    return value.key === 'specials' ? t('specials') : t('seasonNumber', { number: value.number });
  };
  return (
    <Accordion
      multiple
      defaultValue={[firstSeasonToOpen(seasons)].filter((id): id is string => id !== null)}
      variant="separated"
      data-testid="seasons"
    >
      {seasons.map((season) => (
        <Accordion.Item key={season.id} value={season.id} data-testid="season">
          <Accordion.Control>
            <Group gap="xs">
              <Text fw={600}>{title(season)}</Text>
              <Text size="sm" c="dimmed">
                {t('episodeCount', { count: season.episodes.length })}
              </Text>
            </Group>
          </Accordion.Control>
          <Accordion.Panel>
            {season.episodes.length === 0 ? (
              <Text size="sm" c="dimmed">
                {t('noEpisodes')}
              </Text>
            ) : (
              <Stack gap="sm">
                {season.episodes.map((episode) => (
                  <EpisodeRow key={episode.id} episode={episode} onPlay={onPlay} />
                ))}
              </Stack>
            )}
          </Accordion.Panel>
        </Accordion.Item>
      ))}
    </Accordion>
  );
}
