import type { ReactNode } from 'react';
import { Anchor, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../../api/endpoint-hooks.js';
import { formatBytes, formatNumber } from '../../../i18n/format.js';
import { QueryState } from '../../../shell/query-state.js';
import { deviceDisplayName, type Drill, type OpenDrill } from '../drilldown/drill.js';
import { formatWatchMs } from '../report-format.js';
import type { WindowQuery } from '../report-window.js';
import { useLanguage } from '../use-language.js';

interface ShareRow {
  key: string;
  name: string;
  drill: Drill;
  users: number;
  playCount: number;
  watchMs: number;
  bytes: number;
}

function ShareTable({
  title,
  keyLabel,
  rows,
  onOpen,
  testId,
  footer,
}: {
  title: string;
  keyLabel: string;
  rows: ShareRow[];
  onOpen: OpenDrill;
  testId: string;
  footer?: ReactNode;
}) {
  const { t } = useTranslation('reports');
  const language = useLanguage();
  return (
    <Stack gap="xs" style={{ minWidth: 0 }}>
      <Title order={3} size="h5">
        {title}
      </Title>
      {rows.length === 0 ? (
        <Text c="dimmed" size="sm">
          {t('rankings.empty')}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={520}>
          <Table striped highlightOnHover data-testid={testId}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{keyLabel}</Table.Th>
                <Table.Th ta="right">{t('rankings.users')}</Table.Th>
                <Table.Th ta="right">{t('rankings.watch')}</Table.Th>
                <Table.Th ta="right">{t('rankings.plays')}</Table.Th>
                <Table.Th ta="right">{t('rankings.traffic')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row) => (
                <Table.Tr key={row.key} data-testid={`${testId}-row`}>
                  <Table.Td>
                    <Anchor
                      component="button"
                      type="button"
                      size="sm"
                      ta="left"
                      onClick={() => onOpen(row.drill)}
                      aria-label={t('rankings.openDevice', { name: row.name })}
                      data-testid="open-device"
                    >
                      {row.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td ta="right">{formatNumber(row.users)}</Table.Td>
                  <Table.Td ta="right">{formatWatchMs(row.watchMs, language)}</Table.Td>
                  <Table.Td ta="right">{formatNumber(row.playCount)}</Table.Td>
                  <Table.Td ta="right">{formatBytes(row.bytes)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {footer}
    </Stack>
  );
}

/** Platforms, clients and the top devices of the window; each opens the list of its users. */
export function Devices({ reportWindow, onOpen }: { reportWindow: WindowQuery; onOpen: OpenDrill }) {
  const { t } = useTranslation('reports');
  const query = useEndpointQuery(
    endpoints.user.reportDevices,
    { query: reportWindow },
    { keepPrevious: true },
  );
  const unnamed = t('rankings.unnamed');
  return (
    <div data-testid="devices">
      <QueryState query={query} skeletonRows={8}>
        {(data) => (
          <Stack gap="lg">
            <SimpleGrid cols={{ base: 1, xl: 2 }} spacing="lg">
              <ShareTable
                title={t('rankings.platformsTitle')}
                keyLabel={t('rankings.platform')}
                testId="devices-platforms"
                onOpen={onOpen}
                rows={data.platforms.map((row) => {
                  const name = t(`platforms.${row.platform}`);
                  return {
                    ...row,
                    key: row.platform,
                    name,
                    drill: { kind: 'platform', platform: row.platform, name },
                  };
                })}
              />
              <ShareTable
                title={t('rankings.clients')}
                keyLabel={t('rankings.client')}
                testId="devices-clients"
                onOpen={onOpen}
                rows={data.clients.map((row) => {
                  const name = deviceDisplayName(row.client, undefined, unnamed);
                  return {
                    ...row,
                    key: row.client,
                    name,
                    drill: { kind: 'client', client: row.client, name },
                  };
                })}
              />
            </SimpleGrid>
            <ShareTable
              title={t('rankings.devicesTitle')}
              keyLabel={t('rankings.device')}
              testId="devices-devices"
              onOpen={onOpen}
              rows={data.devices.map((row) => {
                const name = deviceDisplayName(row.client, row.deviceName, unnamed);
                return {
                  ...row,
                  key: `${row.client}\u0000${row.deviceName}`,
                  name,
                  drill: { kind: 'client', client: row.client, deviceName: row.deviceName, name },
                };
              })}
              footer={
                <Text size="xs" c="dimmed" data-testid="devices-total" data-value={data.deviceTotal}>
                  {t('rankings.deviceTotal', { count: data.deviceTotal })}
                </Text>
              }
            />
          </Stack>
        )}
      </QueryState>
    </div>
  );
}
