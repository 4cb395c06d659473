import { useEffect, useState } from 'react';
import { Group, Pagination, Select, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { AUDIT_ACTIONS, endpoints, type AuditAction } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { auditActionMessages } from '../../i18n/audit-action-messages.js';
import { registerMessages } from '../../i18n/i18n.js';
import { PageHeader } from '../../shell/page-route.js';
import { pageCount, pageWithinRange } from '../../shell/paged-table-paging.js';
import { QueryState } from '../../shell/query-state.js';
import { AuditEntryCard } from './audit-entry-card.js';
import { auditMessages } from './audit-messages.js';
import { PageSizeSelect, SearchFilter, useListPaging } from '../../shell/list-filters.js';

registerMessages('audit', auditMessages);
registerMessages('auditActions', auditActionMessages);

export default function AuditPage() {
  const { t } = useTranslation('audit');
  const [action, setAction] = useState<AuditAction | null>(null);
  const [actor, setActor] = useState('');
  const [debouncedActor] = useDebouncedValue(actor.trim(), 300);
  const { page, setPage, pageSize, setPageSize, refiltered } = useListPaging();
  const query = useEndpointQuery(
    endpoints.user.listAuditLog,
    { query: { page, pageSize, action: action ?? undefined, actor: debouncedActor || undefined } },
    { keepPrevious: true },
  );
  // Action names grouped by family, in the interface language.
  const families = [...new Set(AUDIT_ACTIONS.map((name) => name.split('.')[0]!))];
  const actionOptions = families.map((family) => ({
    group: t(`family.${family}`),
    items: AUDIT_ACTIONS.filter((name) => name.startsWith(`${family}.`)).map((name) => ({
      value: name,
      label: t(`auditActions:${name}`),
    })),
  }));

  return (
    <>
      <PageHeader title={t('common:nav.audit')} />
      <Group mb="md" gap="sm" align="flex-end" wrap="wrap">
        <Select
          label={t('action')}
          placeholder={t('actionPlaceholder')}
          data={actionOptions}
          value={action}
          onChange={refiltered(setAction)}
          searchable
          clearable
          w={{ base: '100%', sm: 280 }}
          data-testid="audit-action-filter"
        />
        <SearchFilter
          label={t('actor')}
          placeholder={t('actorPlaceholder')}
          value={actor}
          onChange={refiltered(setActor)}
          width={220}
          testId="audit-actor-filter"
        />
        <PageSizeSelect label={t('pageSize')} value={pageSize} onChange={setPageSize} />
      </Group>
      <QueryState query={query} skeletonRows={8}>
        {(data) => (
          <AuditEntries
            data={data}
            page={page}
            onPageChange={setPage}
            emptyText={t('common:noData')}
            totalText={t('total', { count: data.total })}
          />
        )}
      </QueryState>
    </>
  );
}

/** The page's entries as cards (readable at any width), the total and the pager. */
function AuditEntries({
  data,
  page,
  onPageChange,
  emptyText,
  totalText,
}: {
  data: { items: Parameters<typeof AuditEntryCard>[0]['record'][]; total: number; pageSize: number };
  page: number;
  onPageChange: (page: number) => void;
  emptyText: string;
  totalText: string;
}) {
  const shownPage = pageWithinRange(page, data.total, data.pageSize);
  useEffect(() => {
    if (page !== shownPage) onPageChange(shownPage);
  }, [onPageChange, page, shownPage]);
  if (data.items.length === 0) {
    return (
      <Text c="dimmed" data-testid="audit-empty">
        {emptyText}
      </Text>
    );
  }
  return (
    <>
      <Stack gap="sm" data-testid="audit-table">
        {data.items.map((record) => (
          <AuditEntryCard key={record.id} record={record} />
        ))}
      </Stack>
      <Group justify="space-between" mt="md" wrap="wrap">
        <Text size="sm" c="dimmed" data-testid="audit-total" data-value={data.total}>
          {totalText}
        </Text>
        <Pagination
          total={pageCount(data.total, data.pageSize)}
          value={shownPage}
          onChange={onPageChange}
          siblings={0}
          data-testid="audit-pagination"
        />
      </Group>
    </>
  );
}
