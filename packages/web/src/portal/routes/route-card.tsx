import { Badge, Card, Code, Group, Stack, Text } from '@mantine/core';
import type { PlaybackRoute } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { CopyRouteButton } from './copy-route-button.js';
import { RouteHealthBadge } from './route-health-badge.js';
import { splitServerAddress } from './server-address.js';

/**
 * One playback route: its address to enter into an app, a copy button and its health. A play-agent's
 * direct address (handed out until an administrator sets an external one) is marked as such.
 */
export function RouteCard({ route }: { route: PlaybackRoute }) {
  const { t } = useTranslation('myRoutes');
  const address = route.url ? splitServerAddress(route.url) : null;
  return (
    <Card withBorder padding="md" radius="md" data-testid="route-card" data-route-id={route.id}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Text fw={600} truncate>
              {route.name}
            </Text>
            <Text size="xs" c="dimmed">
              {t(`kind.${route.kind}`)} · {t(`source.${route.source}`)}
            </Text>
          </Stack>
          <RouteHealthBadge health={route.health} />
        </Group>
        {route.url ? (
          <>
            <Group gap="xs" wrap="nowrap">
              <Code
                data-testid="route-url"
                style={{ flex: 1, minWidth: 0, overflowWrap: 'anywhere', whiteSpace: 'normal' }}
              >
                {route.url}
              </Code>
              <CopyRouteButton url={route.url} name={route.name} />
            </Group>
            {address && (
              <Group gap="xs">
                <Text size="xs" c="dimmed">
                  {t('hostPort', { host: address.host, port: address.port })}
                  {address.path ? ` · ${address.path}` : ''}
                </Text>
                {address.https && (
                  <Badge size="xs" variant="outline">
                    {t('https')}
                  </Badge>
                )}
                {route.source === 'direct-address' && (
                  <Badge size="xs" variant="light" color="gray" data-testid="route-direct">
                    {t('direct')}
                  </Badge>
                )}
              </Group>
            )}
            {route.source === 'direct-address' && (
              <Text size="xs" c="dimmed" data-testid="route-direct-hint">
                {t('directHint')}
              </Text>
            )}
          </>
        ) : (
          <Text size="sm" c="dimmed" data-testid="route-no-address">
            {t('noAddress')}
          </Text>
        )}
      </Stack>
    </Card>
  );
}
