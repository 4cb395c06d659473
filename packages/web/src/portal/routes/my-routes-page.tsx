import { Alert, Button, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { registerMessages } from '../../i18n/i18n.js';
import { useSession } from '../../session/session.js';
import { PageHeader } from '../../shell/page-route.js';
import { QueryState } from '../../shell/query-state.js';
import { ConnectHint } from './connect-hint.js';
import { RouteCard } from './route-card.js';
import { routesMessages } from './routes-messages.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';

registerMessages('myRoutes', routesMessages);

/** Health changes as nodes come and go; the page follows without a reload. */
const REFRESH_MS = 30_000;

/** The addresses the signed-in user enters into an Emby-compatible app, with copy buttons and health. */
export default function MyRoutesPage() {
  const { t } = useTranslation('myRoutes');
  const { user } = useSession();
  const query = useEndpointQuery(endpoints.config.getMyPlaybackRoutes, {}, { refetchInterval: REFRESH_MS });

  return (
    <>
      <PageHeader
        title={t('common:nav.myRoutes')}
        actions={
          <Button
            variant="default"
            leftSection={<IconRefresh size={16} />}
            onClick={() => void query.refetch()}
            loading={query.isFetching}
          >
            {t('common:refresh')}
          </Button>
        }
      />
      <Stack gap="md">
        <Text c="dimmed">{t('intro')}</Text>
        <ConnectHint username={user?.username ?? ''} />
        <QueryState query={query} skeletonRows={4}>
          {(data) =>
            data.routes.length === 0 ? (
              <Alert color="yellow" data-testid="routes-empty">
                {t('none')}
              </Alert>
            ) : (
              <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} data-testid="routes-list">
                {data.routes.map((route) => (
                  <RouteCard key={`${route.kind}:${route.id}`} route={route} />
                ))}
              </SimpleGrid>
            )
          }
        </QueryState>
      </Stack>
    </>
  );
}
