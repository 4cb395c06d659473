import { Table, Text } from '@mantine/core';
import type { CdnMeasurement } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { formatBytes } from '../../i18n/format.js';

/** Latency and throughput of measured CDN addresses, one row each. */
export function CdnMeasurementsTable({ rows, testId }: { rows: CdnMeasurement[]; testId: string }) {
  const { t } = useTranslation('cdn');
  return (
    <Table data-testid={testId}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t('columns.ip')}</Table.Th>
          <Table.Th>{t('columns.source')}</Table.Th>
          <Table.Th>{t('columns.latency')}</Table.Th>
          <Table.Th>{t('columns.throughput')}</Table.Th>
          <Table.Th>{t('columns.state')}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr key={row.ip} data-testid={`${testId}-${row.ip}`}>
            <Table.Td>{row.ip}</Table.Td>
            <Table.Td>{t(`sources.${row.source}`)}</Table.Td>
            <Table.Td>{latencyText(t, row)}</Table.Td>
            <Table.Td>{throughputText(t, row)}</Table.Td>
            <Table.Td>
              <Text size="sm" c={row.ok ? 'green' : 'red'}>
                {row.ok ? t('ok') : t('failed', { error: row.error ?? '' })}
              </Text>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

type T = ReturnType<typeof useTranslation>['t'];

export function latencyText(t: T, row: CdnMeasurement): string {
  return row.latencyMs === null ? t('none') : t('ms', { value: Math.round(row.latencyMs) });
}

export function throughputText(t: T, row: CdnMeasurement): string {
  return row.throughputBytesPerSecond === null
    ? t('none')
    : t('perSecond', { size: formatBytes(row.throughputBytesPerSecond) });
}
