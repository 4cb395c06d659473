import { Badge, Card, Group, Text } from '@mantine/core';
import { IconMovie } from '@tabler/icons-react';
import type { PortalItem } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { AuthImage } from './auth-image.js';
import { itemImagePath } from './media-paths.js';

/** One title of the grid: poster (or a placeholder), name, year and type; opens the details. */
export function PosterCard({ item, backSearch }: { item: PortalItem; backSearch: string }) {
  const { t } = useTranslation('myLibraries');
  return (
    <Card
      component={Link}
      to={`items/${encodeURIComponent(item.id)}`}
      state={{ backSearch }}
      withBorder
      padding={0}
      radius="md"
      aria-label={t('openItem', { name: item.name })}
      data-testid="item-card"
      data-item-id={item.id}
    >
      <AuthImage
        src={item.hasPoster ? itemImagePath(item.id, 'poster') : null}
        alt={t('posterOf', { name: item.name })}
        fallback={<IconMovie size={40} stroke={1.2} color="var(--mantine-color-dimmed)" />}
      />
      <Group gap={4} p="xs" justify="space-between" wrap="nowrap">
        <Text size="sm" fw={600} truncate title={item.name} style={{ minWidth: 0 }}>
          {item.name}
        </Text>
        {item.year !== null && (
          <Text size="xs" c="dimmed">
            {item.year}
          </Text>
        )}
      </Group>
      {item.type === 'series' && (
        <Badge size="xs" variant="light" pos="absolute" top={6} left={6}>
          {t('type.series')}
        </Badge>
      )}
    </Card>
  );
}
