import { Group, Pagination, Select, Text } from '@mantine/core';
import { REPORT_PAGE_SIZES } from '@svc/contracts';
import { useTranslation } from 'react-i18next';

export interface PageState {
  page: number;
  pageSize: number;
}

export const FIRST_PAGE: PageState = { page: 1, pageSize: 20 };

/** Total, page size (10, 20, 50, 100) and page buttons under a paged list. */
export function Paging({
  total,
  state,
  onChange,
  testId,
}: {
  total: number;
  state: PageState;
  onChange: (state: PageState) => void;
  testId: string;
}) {
  const { t } = useTranslation('reports');
  const pages = Math.max(1, Math.ceil(total / state.pageSize));
  return (
    <Group justify="space-between" mt="sm" gap="sm">
      <Group gap="sm">
        <Text size="sm" c="dimmed" data-testid={`${testId}-total`} data-value={total}>
          {t('rankings.total', { count: total })}
        </Text>
        <Select
          size="xs"
          aria-label={t('rankings.pageSize')}
          data={REPORT_PAGE_SIZES.map(String)}
          value={String(state.pageSize)}
          onChange={(value) => onChange({ page: 1, pageSize: Number(value ?? 20) })}
          allowDeselect={false}
          data-testid={`${testId}-page-size`}
          w={80}
        />
      </Group>
      <Pagination
        size="sm"
        total={pages}
        value={Math.min(state.page, pages)}
        onChange={(page) => onChange({ ...state, page })}
        data-testid={`${testId}-pagination`}
      />
    </Group>
  );
}
