import { Badge, Code, Group, Paper, Stack, Table, Text } from '@mantine/core';
import type { AuditRecord } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../i18n/format.js';
import { readableDetails } from './audit-details.js';

const CELL = { whiteSpace: 'pre-wrap', wordBreak: 'break-word' } as const;

/** One audit entry: what, who, from where and when, then its changed fields as a before → after table. */
export function AuditEntryCard({ record }: { record: AuditRecord }) {
  const { t } = useTranslation('audit');
  const details = readableDetails(record.details);
  return (
    <Paper withBorder p="sm" data-testid="audit-entry" data-action={record.action}>
      <Group justify="space-between" gap="xs" wrap="wrap">
        <Group gap="xs" wrap="wrap">
          <Text fw={600}>{t(`auditActions:${record.action}`, { defaultValue: record.action })}</Text>
          <Code>{record.action}</Code>
        </Group>
        <Text size="sm" c="dimmed">
          {formatDateTime(record.at)}
        </Text>
      </Group>
      <Group gap="md" mt={4} wrap="wrap">
        <Text size="sm" data-testid="audit-actor">
          {t('actor')}: <b>{record.actorName}</b>
        </Text>
        <Text size="sm">
          {t('clientIp')}: {record.clientIp ?? '—'}
        </Text>
        {record.targetType && (
          <Text size="sm" style={CELL}>
            {t('target')}: {record.targetType}
            {record.targetId ? ` · ${record.targetId}` : ''}
          </Text>
        )}
      </Group>
      {(details.changes.length > 0 || details.facts.length > 0) && (
        <Stack gap={4} mt="xs">
          {details.changes.length > 0 && (
            <Table withTableBorder layout="fixed" fz="sm" data-testid="audit-changes">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('field')}</Table.Th>
                  <Table.Th>{t('before')}</Table.Th>
                  <Table.Th>{t('after')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {details.changes.map((change) => (
                  <Table.Tr key={change.field}>
                    <Table.Td style={CELL}>{change.field}</Table.Td>
                    <Table.Td style={CELL}>{change.before ?? '—'}</Table.Td>
                    <Table.Td style={CELL}>{change.after ?? '—'}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
          {details.hasChanges && details.changes.length === 0 && (
            <Badge variant="light" color="gray">
              {t('noChange')}
            </Badge>
          )}
          {details.facts.map((fact) => (
            <Text key={fact.field} size="sm" style={CELL}>
              <Text span c="dimmed" size="sm">
                {fact.field}:
              </Text>{' '}
              {fact.value}
            </Text>
          ))}
        </Stack>
      )}
    </Paper>
  );
}
