import { Paper, Stack, Title } from '@mantine/core';
import type { UserDetail } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import type { RouteChoices } from './node-access-card.js';
import { QuotaUsageList } from './quota-usage-list.js';
import { QuotasForm } from './quotas-form.js';

/** The user's traffic quotas: use in the current period, then the quotas themselves. */
export function QuotasCard({
  user,
  routes,
  readOnly,
}: {
  user: UserDetail;
  routes: RouteChoices;
  readOnly: boolean;
}) {
  const { t } = useTranslation('users');
  return (
    <Stack>
      <Paper withBorder p="md" radius="md">
        <Title order={2} size="h4" mb="sm">
          {t('quotas.usageTitle')}
        </Title>
        <QuotaUsageList userId={user.id} options={routes.options} />
      </Paper>
      <Paper withBorder p="md" radius="md">
        <Title order={2} size="h4" mb="sm">
          {t('quotas.formTitle')}
        </Title>
        <QuotasForm user={user} routes={routes} readOnly={readOnly} />
      </Paper>
    </Stack>
  );
}
