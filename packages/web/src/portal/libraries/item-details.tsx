import { useRef, useState } from 'react';
import { Badge, Button, Grid, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { IconArrowLeft, IconMovie } from '@tabler/icons-react';
import { containerLabel, endpoints, type PortalItemDetail } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useParams } from 'react-router';
import { formatBytes, formatDuration } from '../../i18n/format.js';
import { QueryState } from '../../shell/query-state.js';
import { AuthImage } from './auth-image.js';
import { episodeCode } from './item-labels.js';
import { itemImagePath } from './media-paths.js';
import { PlayAction } from './play-action.js';
import { usePlayAgentBaseUrl } from './playback/use-play-agent-base-url.js';
import { SeasonsList } from './seasons-list.js';
import { WebPlayer } from './web-player.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';

interface Playing {
  /** The portal's item id (its file's streams and subtitles come from the item detail). */
  itemId: string;
  playbackItemId: string;
  title: string;
}

function Facts({ item }: { item: PortalItemDetail }) {
  const { t } = useTranslation('myLibraries');
  const runtime = item.runtime ?? item.file?.durationSeconds ?? null;
  const code = item.type === 'episode' ? episodeCode(item) : '';
  return (
    <Group gap="xs">
      <Badge variant="light">{t(`type.${item.type}`)}</Badge>
      {code && <Badge variant="outline">{code}</Badge>}
      {item.year !== null && (
        <Text size="sm" c="dimmed" aria-label={t('year')}>
          {item.year}
        </Text>
      )}
      {runtime !== null && (
        <Text size="sm" c="dimmed" aria-label={t('runtime')}>
          {formatDuration(runtime)}
        </Text>
      )}
      {item.file && (
        <Text size="sm" c="dimmed">
          {[containerLabel(item.file.container), item.file.size !== null ? formatBytes(item.file.size) : null]
            .filter(Boolean)
            .join(' · ')}
        </Text>
      )}
    </Group>
  );
}

/** One title: poster, facts, overview, seasons and episodes of a series, and the web player. */
export function ItemDetails() {
  const { t } = useTranslation('myLibraries');
  const { id = '' } = useParams();
  const location = useLocation();
  const backSearch = (location.state as { backSearch?: string } | null)?.backSearch ?? '';
  const item = useEndpointQuery(endpoints.media.getMyItem, { params: { id } });
  const webPlayback = useEndpointQuery(endpoints.user.getMyWebPlayback, {});
  const baseUrl = usePlayAgentBaseUrl();
  const [playing, setPlaying] = useState<Playing | null>(null);
  // The same query as `item` when the title itself plays; an episode's own detail otherwise.
  const playingItem = useEndpointQuery(
    endpoints.media.getMyItem,
    { params: { id: playing?.itemId ?? id } },
    { enabled: playing !== null },
  );
  const playerHolder = useRef<HTMLDivElement>(null);
  const allowed = webPlayback.data?.allowed === true && baseUrl !== null;

  const play = (next: Playing) => {
    setPlaying(next);
    requestAnimationFrame(() => playerHolder.current?.scrollIntoView({ behavior: 'smooth', block: 'start' }));
  };

  return (
    <Stack gap="md">
      <Group>
        <Button
          component={Link}
          to={{ pathname: '..', search: backSearch }}
          variant="subtle"
          leftSection={<IconArrowLeft size={16} />}
          data-testid="item-back"
        >
          {t('back')}
        </Button>
      </Group>
      <QueryState query={item} skeletonRows={8}>
        {(data) => (
          <Stack gap="lg" data-testid="item-details">
            <div ref={playerHolder}>
              {playing && baseUrl && (
                <Paper withBorder p="sm" radius="md">
                  <WebPlayer
                    key={playing.playbackItemId}
                    baseUrl={baseUrl}
                    playbackItemId={playing.playbackItemId}
                    title={playing.title}
                    file={playingItem.data?.file ?? null}
                    onClose={() => setPlaying(null)}
                  />
                </Paper>
              )}
            </div>
            <Grid gap="lg">
              <Grid.Col span={{ base: 12, xs: 5, sm: 4, md: 3 }}>
                <Paper withBorder radius="md" style={{ overflow: 'hidden' }} maw={320}>
                  <AuthImage
                    src={data.hasPoster ? itemImagePath(data.id, 'poster') : null}
                    alt={t('posterOf', { name: data.name })}
                    fallback={<IconMovie size={56} stroke={1.2} color="var(--mantine-color-dimmed)" />}
                  />
                </Paper>
              </Grid.Col>
              <Grid.Col span={{ base: 12, xs: 7, sm: 8, md: 9 }}>
                <Stack gap="sm">
                  {data.seriesName && (
                    <Text size="sm" c="dimmed">
                      {data.seriesName}
                    </Text>
                  )}
                  <Title order={1} size="h2" data-testid="item-title">
                    {data.name}
                  </Title>
                  {data.originalTitle && data.originalTitle !== data.name && (
                    <Text size="sm" c="dimmed">
                      {data.originalTitle}
                    </Text>
                  )}
                  <Facts item={data} />
                  <PlayAction
                    webPlayback={webPlayback}
                    ready={baseUrl !== null}
                    onPlay={
                      data.file
                        ? () => play({ itemId: id, playbackItemId: data.playbackItemId, title: data.name })
                        : null
                    }
                  />
                  {!data.file &&
                    data.seasons.length === 0 &&
                    (data.type === 'movie' || data.type === 'episode') && (
                      <Text size="sm" c="dimmed">
                        {t('notPlayable')}
                      </Text>
                    )}
                  <Title order={2} size="h4" mt="sm">
                    {t('overview')}
                  </Title>
                  <Text data-testid="item-overview" style={{ whiteSpace: 'pre-line' }}>
                    {data.overview || t('noOverview')}
                  </Text>
                </Stack>
              </Grid.Col>
            </Grid>
            {data.seasons.length > 0 && (
              <Stack gap="xs">
                <Title order={2} size="h4">
                  {t('seasons')}
                </Title>
                <SeasonsList
                  seasons={data.seasons}
                  onPlay={
                    allowed
                      ? (episode) =>
                          play({
                            itemId: episode.id,
                            playbackItemId: episode.playbackItemId,
                            title: `${data.name} ${episodeCode(episode)} ${episode.name}`.trim(),
                          })
                      : null
                  }
                />
              </Stack>
            )}
          </Stack>
        )}
      </QueryState>
    </Stack>
  );
}
