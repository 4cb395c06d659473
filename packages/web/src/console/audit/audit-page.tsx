import { useState } from 'react';
import { Code, Group, Select, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { auditLogResponseSchema, type AuditRecord } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useApiQuery } from '../../api/hooks.js';
import { formatDateTime } from '../../i18n/format.js';
import { registerMessages } from '../../i18n/i18n.js';
import { PageHeader } from '../../shell/page-route.js';
import { PagedTable, type TableColumn } from '../../shell/paged-table.js';
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
  const columns: TableColumn<AuditRecord>[] = [
    { key: 'at', header: t('at'), cell: (record) => formatDateTime(record.at), wrap: 'never' },
    { key: 'actor', header: t('actor'), cell: (record) => record.actorName },
    { key: 'action', header: t('action'), cell: (record) => <Code>{record.action}</Code> },
    { key: 'target', header: t('target'), cell: targetOf },
    { key: 'clientIp', header: t('clientIp'), cell: (record) => record.clientIp ?? '—' },
    { key: 'details', header: t('details'), cell: (record) => <Details details={record.details} /> },
  ];

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
        {(data) => (
          <PagedTable
            testId="audit"
            minWidth={720}
            columns={columns}
            rows={data.items}
            rowKey={(record) => record.id}
            emptyText={t('common:noData')}
            paging={{
              page,
              pageSize: data.pageSize,
              total: data.total,
              onPageChange: setPage,
              totalText: t('total', { count: data.total }),
            }}
          />
        )}
      </QueryState>
    </>
  );
}

const targetOf = (record: AuditRecord) =>
  record.targetType ? `${record.targetType}${record.targetId ? ` · ${record.targetId}` : ''}` : '—';

function Details({ details }: { details: AuditRecord['details'] }) {
  if (Object.keys(details).length === 0) return '—';
  return (
    <Code block style={{ maxWidth: 360, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
      {JSON.stringify(details)}
    </Code>
  );
}
