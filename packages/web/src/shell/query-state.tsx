import type { ReactNode } from 'react';
import { Skeleton, Stack } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { ErrorAlert } from './error-alert.js';

/**
 * Renders a query's data, with a skeleton of about the final height while loading (no blank screen,
 * no jump) and the translated error with a retry button when it failed.
 */
export function QueryState<T>({
  query,
  children,
  skeletonRows = 3,
}: {
  query: UseQueryResult<T, unknown>;
  children: (data: T) => ReactNode;
  skeletonRows?: number;
}) {
  if (query.isPending) {
    return (
      <Stack gap="xs" aria-busy="true" data-testid="loading">
        {Array.from({ length: skeletonRows }, (_, index) => (
          <Skeleton key={index} height={28} radius="sm" />
        ))}
      </Stack>
    );
  }
  if (query.isError) return <ErrorAlert error={query.error} onRetry={() => void query.refetch()} />;
  return <>{children(query.data)}</>;
}
