import { Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { registerMessages } from '../../i18n/i18n.js';
import { PageHeader } from '../../shell/page-route.js';
import { QueryState } from '../../shell/query-state.js';
import { QuotaBar } from './quota-bar.js';
import { quotaMessages } from './quota-messages.js';
import { quotaViews } from './quota-view.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';

registerMessages('myQuota', quotaMessages);

/** Use moves while the user streams; a minute is fresh enough for a quota page. */
const REFRESH_MS = 60_000;

function Unlimited({ text, testId }: { text: string; testId: string }) {
  const { t } = useTranslation('myQuota');
  return (
    <Paper withBorder p="md" radius="md" data-testid={testId}>
      <Text fw={600}>{t('unlimited')}</Text>
      <Text size="sm" c="dimmed">
        {text}
      </Text>
    </Paper>
  );
}

/** The signed-in user's traffic quotas (total and per route) with their use in the current period. */
export default function MyQuotaPage() {
  const { t } = useTranslation('myQuota');
  const usage = useEndpointQuery(endpoints.user.getMyUsage, {}, { refetchInterval: REFRESH_MS });
  // Only for the names of route quotas: without it the ids are shown.
  const routes = useEndpointQuery(endpoints.config.getMyPlaybackRoutes, {});

  return (
    <>
      <PageHeader title={t('common:nav.myQuota')} />
      <Text c="dimmed" mb="md">
        {t('intro')}
      </Text>
      <QueryState query={usage} skeletonRows={6}>
        {(data) => {
          const views = quotaViews(data.quotas, routes.data?.routes ?? []);
          return (
            <Stack gap="lg">
              <Stack gap="xs">
                <Title order={2} size="h4">
                  {t('totalTitle')}
                </Title>
                {views.total ? (
                  <QuotaBar name={t('allRoutes')} quota={views.total} />
                ) : (
                  <Unlimited text={t('totalUnlimited')} testId="quota-total-unlimited" />
                )}
              </Stack>
              <Stack gap="xs">
                <Title order={2} size="h4">
                  {t('routesTitle')}
                </Title>
                {views.routes.length === 0 ? (
                  <Unlimited text={t('routesUnlimited')} testId="quota-routes-unlimited" />
                ) : (
                  <>
                    <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} data-testid="quota-routes">
                      {views.routes.map((view) => (
                        <QuotaBar
                          key={view.key}
                          name={view.name ?? t('unknownRoute', { id: view.quota.id ?? '' })}
                          quota={view.quota}
                        />
                      ))}
                    </SimpleGrid>
                    <Text size="sm" c="dimmed">
                      {t('routesRest')}
                    </Text>
                  </>
                )}
              </Stack>
            </Stack>
          );
        }}
      </QueryState>
    </>
  );
}
