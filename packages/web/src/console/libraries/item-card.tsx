import { Badge, Card, Group, Stack, Text } from '@mantine/core';
import type { MediaItemSummary } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { AuthImage } from './auth-image.js';
import { episodeLabel } from './item-labels.js';

/** One item as a poster card that opens its details. */
export function ItemCard({ item }: { item: MediaItemSummary }) {
  const { t } = useTranslation('libraries');
  const episode = item.kind === 'episode' ? episodeLabel(item) : '';
  const season =
    item.kind === 'season' && item.seasonNumber !== null
      ? t('items.seasonNumber', { number: item.seasonNumber })
      : '';
  return (
    <Card
      component={Link}
      to={`/console/libraries/${item.libraryId}/items/${item.id}`}
      withBorder
      padding="xs"
      radius="md"
      data-testid="item-card"
      data-item-id={item.id}
      aria-label={item.title}
    >
      <Card.Section>
        <AuthImage src={item.images.poster?.url ?? item.images.thumb?.url} alt={item.title} radius="xs" />
      </Card.Section>
      <Stack gap={2} mt="xs">
        <Text size="sm" fw={500} lineClamp={2} title={item.title}>
          {item.title}
        </Text>
        <Group gap={6} wrap="wrap">
          {item.year !== null && (
            <Text size="xs" c="dimmed">
              {item.year}
            </Text>
          )}
          {(episode || season) && (
            <Text size="xs" c="dimmed">
              {episode || season}
            </Text>
          )}
          <Badge size="xs" variant="light">
            {t(`kind.${item.kind}`)}
          </Badge>
        </Group>
      </Stack>
    </Card>
  );
}
