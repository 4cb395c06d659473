import { ActionIcon, Group, Text, Tooltip } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { registerMessages } from '../../i18n/i18n.js';
import { PageHeader } from '../../shell/page-route.js';
import { useDashboardData } from './dashboard-data.js';
import { dashboardMessages } from './dashboard-messages.js';
import { HealthCards } from './health-cards.js';
import { SessionsCard } from './sessions-card.js';
import { SetupChecklist } from './setup-checklist.js';
import { StorageCard } from './storage-card.js';
import { SummaryCards } from './summary-cards.js';

registerMessages('dashboard', dashboardMessages);

/** The console's dashboard (permission `dashboard`): health, playback going on now and storage, every 10 s. */
export default function DashboardPage() {
  const { t } = useTranslation('dashboard');
  const data = useDashboardData();
  const refresh = () => {
    void data.health.refetch();
    void data.sessions.refetch();
    void data.storage.refetch();
    void data.setup.refetch();
  };
  return (
    <div data-testid="dashboard">
      <PageHeader
        title={t('common:nav.dashboard')}
        actions={
          <Group gap="xs" wrap="nowrap">
            <Text size="sm" c="dimmed">
              {t('refreshHint')}
            </Text>
            <Tooltip label={t('refreshNow')}>
              <ActionIcon
                variant="default"
                size="lg"
                aria-label={t('refreshNow')}
                onClick={refresh}
                data-testid="dashboard-refresh"
              >
                <IconRefresh size={18} />
              </ActionIcon>
            </Tooltip>
          </Group>
        }
      />
      <SetupChecklist data={data} />
      <SummaryCards data={data} />
      <SessionsCard data={data} />
      <HealthCards data={data} />
      <StorageCard data={data} />
    </div>
  );
}
