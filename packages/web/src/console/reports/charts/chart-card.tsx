import type { ReactNode } from 'react';
import { Group, Paper, Skeleton, Title } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { ErrorAlert } from '../../../shell/error-alert.js';

/**
 * A titled block holding one chart: a skeleton of the chart's height while the first answer loads, the
 * translated error with a retry button, else the chart (the previous answer stays while a new one loads).
 */
export function ChartCard<T>({
  title,
  controls,
  query,
  height = 320,
  children,
}: {
  title: string;
  controls?: ReactNode;
  query: UseQueryResult<T, unknown>;
  height?: number;
  children: (data: T) => ReactNode;
}) {
  return (
    <Paper withBorder p="md" mb="md" style={{ minWidth: 0 }}>
      <Group justify="space-between" mb="sm" gap="xs">
        <Title order={2} size="h4">
          {title}
        </Title>
        {controls && <Group gap="xs">{controls}</Group>}
      </Group>
      {query.isPending ? (
        <Skeleton height={height} data-testid="loading" />
      ) : query.isError ? (
        <ErrorAlert error={query.error} onRetry={() => void query.refetch()} />
      ) : (
        <div style={{ opacity: query.isPlaceholderData ? 0.6 : 1 }}>{children(query.data)}</div>
      )}
    </Paper>
  );
}
