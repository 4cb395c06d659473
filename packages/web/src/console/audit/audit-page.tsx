import { useState } from 'react';
import { Code, Group, Pagination, Select, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { auditLogResponseSchema } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useApiQuery } from '../../api/hooks.js';
import { formatDateTime } from '../../i18n/format.js';
import { registerMessages } from '../../i18n/i18n.js';
import { PageHeader } from '../../shell/page-route.js';
import { QueryState } from '../../shell/query-state.js';
import { auditMessages } from './audit-messages.js';

registerMessages('audit', auditMessages);

const PAGE_SIZES = ['20', '50', '100'];

export default function AuditPage() {
  const { t } = useTranslation('audit');
  const [action, setAction] = useState('');
  const [debouncedAction] = useDebouncedValue(action.trim(), 300);
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState('20');
  const query = useApiQuery('/api/auth/admin/audit-log', {
    schema: auditLogResponseSchema,
    query: { page, pageSize, action: debouncedAction || undefined },
    keepPrevious: true,
  });
  const pages = query.data ? Math.max(1, Math.ceil(query.data.total / query.data.pageSize)) : 1;

  return (
    <>
      <PageHeader title={t('common:nav.audit')} />
      <Group mb="md" gap="sm" align="flex-end">
        <TextInput
          label={t('action')}
          placeholder={t('actionPlaceholder')}
          leftSection={<IconSearch size={16} />}
          value={action}
          onChange={(event) => {
            setAction(event.currentTarget.value);
            setPage(1);
          }}
          w={{ base: '100%', sm: 280 }}
        />
        <Select
          label={t('pageSize')}
          data={PAGE_SIZES}
          value={pageSize}
          onChange={(value) => {
            setPageSize(value ?? '20');
            setPage(1);
          }}
          allowDeselect={false}
          w={110}
        />
      </Group>
      <QueryState query={query} skeletonRows={8}>
        {(data) =>
          data.items.length === 0 ? (
            <Text c="dimmed">{t('common:noData')}</Text>
          ) : (
            <>
              <Table.ScrollContainer minWidth={720}>
                <Table striped highlightOnHover data-testid="audit-table">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>{t('at')}</Table.Th>
                      <Table.Th>{t('actor')}</Table.Th>
                      <Table.Th>{t('action')}</Table.Th>
                      <Table.Th>{t('target')}</Table.Th>
                      <Table.Th>{t('clientIp')}</Table.Th>
                      <Table.Th>{t('details')}</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {data.items.map((record) => (
                      <Table.Tr key={record.id}>
                        <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(record.at)}</Table.Td>
                        <Table.Td>{record.actorName}</Table.Td>
                        <Table.Td>
                          <Code>{record.action}</Code>
                        </Table.Td>
                        <Table.Td>
                          {record.targetType
                            ? `${record.targetType}${record.targetId ? ` · ${record.targetId}` : ''}`
                            : '—'}
                        </Table.Td>
                        <Table.Td>{record.clientIp ?? '—'}</Table.Td>
                        <Table.Td>
                          {Object.keys(record.details).length > 0 ? (
                            <Code
                              block
                              style={{ maxWidth: 360, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
                            >
                              {JSON.stringify(record.details)}
                            </Code>
                          ) : (
                            '—'
                          )}
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
              <Group justify="space-between" mt="md">
                <Text size="sm" c="dimmed">
                  {t('total', { count: data.total })}
                </Text>
                <Pagination total={pages} value={page} onChange={setPage} />
              </Group>
            </>
          )
        }
      </QueryState>
    </>
  );
}
