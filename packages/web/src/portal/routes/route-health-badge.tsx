import { Badge } from '@mantine/core';
import type { PlaybackRoute } from '@svc/contracts';
import { useTranslation } from 'react-i18next';

const COLORS: Record<PlaybackRoute['health'], string> = { online: 'green', offline: 'red', pending: 'gray' };

/** The health of a playback route as a coloured mark with its word (colour is never the only signal). */
export function RouteHealthBadge({ health }: { health: PlaybackRoute['health'] }) {
  const { t } = useTranslation('myRoutes');
  return (
    <Badge color={COLORS[health]} variant="light" data-testid="route-health" data-health={health}>
      {t(`health.${health}`)}
    </Badge>
  );
}
