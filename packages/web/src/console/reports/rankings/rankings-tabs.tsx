import { Paper, Tabs, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { OpenDrill } from '../drilldown/drill.js';
import type { WindowQuery } from '../report-window.js';
import { Devices } from './devices.js';
import { InactiveUsers } from './inactive-users.js';
import { TopMedia } from './top-media.js';
import { TopUsers } from './top-users.js';

const TABS = ['topUsers', 'topMedia', 'inactiveUsers', 'devices'] as const;
const TAB_TEST_IDS = {
  topUsers: 'tab-top-users',
  topMedia: 'tab-top-media',
  inactiveUsers: 'tab-inactive-users',
  devices: 'tab-devices',
} as const;

/** The rankings in tabs; a tab's list is only asked for once it is opened. */
export function RankingsTabs({ reportWindow, onOpen }: { reportWindow: WindowQuery; onOpen: OpenDrill }) {
  const { t } = useTranslation('reports');
  return (
    <Paper withBorder p="md" mb="md">
      <Title order={2} size="h4" mb="sm">
        {t('rankings.title')}
      </Title>
      <Tabs defaultValue="topUsers" keepMounted={false}>
        <Tabs.List mb="md">
          {TABS.map((tab) => (
            <Tabs.Tab key={tab} value={tab} data-testid={TAB_TEST_IDS[tab]}>
              {t(`rankings.${tab}`)}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="topUsers">
          <TopUsers reportWindow={reportWindow} onOpen={onOpen} />
        </Tabs.Panel>
        <Tabs.Panel value="topMedia">
          <TopMedia reportWindow={reportWindow} onOpen={onOpen} />
        </Tabs.Panel>
        <Tabs.Panel value="inactiveUsers">
          {/* A new window starts again at page 1. */}
          <InactiveUsers key={JSON.stringify(reportWindow)} reportWindow={reportWindow} onOpen={onOpen} />
        </Tabs.Panel>
        <Tabs.Panel value="devices">
          <Devices reportWindow={reportWindow} onOpen={onOpen} />
        </Tabs.Panel>
      </Tabs>
    </Paper>
  );
}
