import type { ReactNode } from 'react';
import {
  Anchor,
  Badge,
  Breadcrumbs,
  Card,
  Code,
  Grid,
  Group,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { containerLabel, containerName, endpoints, type MediaItemDetail } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { formatBytes, formatDateTime, formatDuration } from '../../i18n/format.js';
import { QueryState } from '../../shell/query-state.js';
import { TimeZoneNote } from '../../shell/time-zone-note.js';
import { AuthImage } from './auth-image.js';
import { ItemCard } from './item-card.js';
import { episodeLabel, formatBitrate } from './item-labels.js';
import { sourceLabel, useMountLabels } from './mount-labels.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Group gap="xs" wrap="nowrap" align="flex-start">
      <Text size="sm" c="dimmed" miw={120}>
        {label}
      </Text>
      <Text size="sm" style={{ wordBreak: 'break-all' }} component="div">
        {children}
      </Text>
    </Group>
  );
}

function MediaInfo({ item }: { item: MediaItemDetail }) {
  const { t } = useTranslation('libraries');
  const info = item.mediaInfo;
  if (!info) {
    return (
      <Text size="sm" c="dimmed">
        {t('item.noMediaInfo')}
      </Text>
    );
  }
  return (
    <Stack gap="xs">
      <Field label={t('item.container')}>
        <span data-testid="item-container" title={info.container}>
          {containerLabel(containerName(info.container, item.file?.path) ?? info.container)}
        </span>
      </Field>
      <Field label={t('item.duration')}>{formatDuration(info.durationSeconds)}</Field>
      <Field label={t('item.bitrate')}>{formatBitrate(info.bitrate)}</Field>
      <Field label={t('item.size')}>{formatBytes(info.size)}</Field>
      <Table.ScrollContainer minWidth={560}>
        <Table striped data-testid="item-streams">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>#</Table.Th>
              <Table.Th>{t('item.streamType')}</Table.Th>
              <Table.Th>{t('item.codec')}</Table.Th>
              <Table.Th>{t('item.language')}</Table.Th>
              <Table.Th>{t('item.details')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {info.streams.map((stream) => (
              <Table.Tr key={stream.index}>
                <Table.Td>{stream.index}</Table.Td>
                <Table.Td>{t(`item.stream.${stream.type}`)}</Table.Td>
                <Table.Td>
                  <Code>{stream.codec}</Code>
                </Table.Td>
                <Table.Td>{stream.language ?? '—'}</Table.Td>
                <Table.Td>
                  {[
                    stream.width && stream.height ? `${stream.width}×${stream.height}` : '',
                    stream.channels ? t('item.channels', { count: stream.channels }) : '',
                    stream.title ?? '',
                    stream.default ? t('item.default') : '',
                    stream.forced ? t('item.forced') : '',
                  ]
                    .filter(Boolean)
                    .join(' · ') || '—'}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

function ItemBody({ item }: { item: MediaItemDetail }) {
  const { t } = useTranslation('libraries');
  const labels = useMountLabels();
  const episode = item.kind === 'episode' ? episodeLabel(item) : '';
  return (
    <Stack gap="md" data-testid="item-detail">
      <Grid gap="md">
        <Grid.Col span={{ base: 12, xs: 5, sm: 4, md: 3 }}>
          <AuthImage src={item.images.poster?.url ?? item.images.thumb?.url} alt={item.title} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, xs: 7, sm: 8, md: 9 }}>
          <Stack gap="xs">
            <Title order={1} size="h2" data-testid="item-title">
              {item.title}
            </Title>
            {item.originalTitle && item.originalTitle !== item.title && (
              <Text c="dimmed">{item.originalTitle}</Text>
            )}
            <TimeZoneNote />
            <Group gap="xs">
              <Badge variant="light">{t(`kind.${item.kind}`)}</Badge>
              {episode && <Badge variant="outline">{episode}</Badge>}
              {item.year !== null && <Text size="sm">{item.year}</Text>}
            </Group>
            {item.overview && (
              <Text size="sm" style={{ whiteSpace: 'pre-line' }}>
                {item.overview}
              </Text>
            )}
            <Field label={t('item.releaseDate')}>{item.releaseDate ?? '—'}</Field>
            <Field label={t('item.ids')}>
              {[item.tmdbId ? `TMDB ${item.tmdbId}` : '', item.imdbId ? `IMDb ${item.imdbId}` : '']
                .filter(Boolean)
                .join(' · ') || '—'}
            </Field>
            <Field label={t('item.path')}>
              <Code>{item.path}</Code>
            </Field>
            {item.file && (
              <>
                <Field label={t('item.file')}>
                  {sourceLabel({ mountId: item.file.mountId, path: item.file.path }, labels)} ·{' '}
                  {item.file.nodeId}
                </Field>
                <Field label={t('item.fileSize')}>
                  {formatBytes(item.file.size)} · {formatDateTime(item.file.mtime)}
                </Field>
              </>
            )}
            <Field label={t('item.added')}>{formatDateTime(item.addedAt)}</Field>
          </Stack>
        </Grid.Col>
      </Grid>
      {(item.kind === 'movie' || item.kind === 'episode') && (
        <Card withBorder>
          <Title order={2} size="h5" mb="xs">
            {t('item.technical')}
          </Title>
          <MediaInfo item={item} />
          {item.subtitles.length > 0 && (
            <Stack gap={2} mt="sm">
              <Text size="sm" fw={500}>
                {t('item.subtitles')}
              </Text>
              {item.subtitles.map((subtitle) => (
                <Text key={subtitle.path} size="xs" style={{ wordBreak: 'break-all' }}>
                  {subtitle.path} · {subtitle.format}
                  {subtitle.language ? ` · ${subtitle.language}` : ''}
                  {subtitle.forced ? ` · ${t('item.forced')}` : ''}
                  {subtitle.default ? ` · ${t('item.default')}` : ''}
                  {subtitle.hearingImpaired ? ` · ${t('item.hearingImpaired')}` : ''}
                </Text>
              ))}
            </Stack>
          )}
        </Card>
      )}
      {item.children.length > 0 && (
        <>
          <Title order={2} size="h4">
            {t(item.kind === 'series' ? 'item.seasons' : 'item.episodes')}
          </Title>
          <SimpleGrid cols={{ base: 2, xs: 3, sm: 4, lg: 6 }} spacing="sm" data-testid="item-children">
            {item.children.map((child) => (
              <ItemCard key={child.id} item={child} />
            ))}
          </SimpleGrid>
        </>
      )}
    </Stack>
  );
}

/** One item of a library: artwork, metadata, file, technical data, subtitles and its seasons or episodes. */
export function ItemDetail() {
  const { t } = useTranslation('libraries');
  const { libraryId = '', itemId = '' } = useParams();
  const query = useEndpointQuery(endpoints.media.getItem, { params: { id: itemId } });
  const item = query.data;
  return (
    <Stack gap="md">
      <Breadcrumbs separatorMargin={6} style={{ flexWrap: 'wrap' }}>
        <Anchor component={Link} to="/console/libraries" size="sm">
          {t('common:nav.libraries')}
        </Anchor>
        <Anchor component={Link} to={`/console/libraries/${libraryId}`} size="sm">
          {item?.library.name ?? <Skeleton component="span" height={12} width={80} />}
        </Anchor>
        {item?.ancestors.map((ancestor) => (
          <Anchor
            key={ancestor.id}
            component={Link}
            to={`/console/libraries/${libraryId}/items/${ancestor.id}`}
            size="sm"
            data-testid="item-breadcrumb"
            data-kind={ancestor.kind}
          >
            {ancestor.title}
          </Anchor>
        ))}
        <Text size="sm">{item?.title ?? '…'}</Text>
      </Breadcrumbs>
      <QueryState query={query} skeletonRows={8}>
        {(data) => <ItemBody item={data} />}
      </QueryState>
    </Stack>
  );
}
