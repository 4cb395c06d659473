import { Group, SegmentedControl, Text } from '@mantine/core';
import { reportSortSchema, type ReportSort } from '@svc/contracts';
import { useTranslation } from 'react-i18next';

/** Sort key of a ranking: watch time, plays or traffic. */
export function SortControl({
  value,
  onChange,
  testId,
}: {
  value: ReportSort;
  onChange: (sort: ReportSort) => void;
  testId: string;
}) {
  const { t } = useTranslation('reports');
  return (
    <Group gap="xs" mb="sm">
      <Text size="sm" c="dimmed" id={`${testId}-label`}>
        {t('rankings.sortBy')}
      </Text>
      <SegmentedControl
        size="xs"
        aria-labelledby={`${testId}-label`}
        value={value}
        onChange={(next) => {
          const parsed = reportSortSchema.safeParse(next);
          if (parsed.success) onChange(parsed.data);
        }}
        data={reportSortSchema.options.map((sort) => ({ value: sort, label: t(`rankings.sort.${sort}`) }))}
        data-testid={testId}
      />
    </Group>
  );
}
