import { useCallback } from 'react';
import {
  keepPreviousData,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryKey,
  type UseQueryOptions,
} from '@tanstack/react-query';
import type { z } from 'zod';
import { useSession } from '../session/session.js';
import { apiRequest, type ApiError, type RequestOptions } from './client.js';

/** A request function bound to the signed-in account's tokens. */
export function useApi() {
  const { credentials } = useSession();
  return useCallback(
    <T>(path: string, options?: RequestOptions<T>) => apiRequest<T>(credentials, path, options),
    [credentials],
  );
}

export interface ApiQueryOptions<T> {
  query?: RequestOptions<T>['query'];
  schema?: z.ZodType<T>;
  enabled?: boolean;
  refetchInterval?: UseQueryOptions<T, ApiError>['refetchInterval'];
  /** Keep showing the previous answer while a new key loads (paging, search). */
  keepPrevious?: boolean;
}

/** A GET of the public API, cached under its path and query. */
export function useApiQuery<T>(path: string, options: ApiQueryOptions<T> = {}) {
  const api = useApi();
  const { app } = useSession();
  return useQuery<T, ApiError>({
    queryKey: [app, path, options.query ?? {}] as QueryKey,
    queryFn: ({ signal }) =>
      api<T>(path, {
        ...(options.query ? { query: options.query } : {}),
        ...(options.schema ? { schema: options.schema } : {}),
        signal,
      }),
    enabled: options.enabled ?? true,
    ...(options.refetchInterval !== undefined ? { refetchInterval: options.refetchInterval } : {}),
    ...(options.keepPrevious ? { placeholderData: keepPreviousData } : {}),
  });
}

/**
 * A change through the public API; afterwards every cached GET whose path starts with one of
 * `invalidates` is fetched again.
 */
export function useApiMutation<TVariables, TResult = unknown>(
  run: (api: ReturnType<typeof useApi>, variables: TVariables) => Promise<TResult>,
  invalidates: string[] = [],
) {
  const api = useApi();
  const queryClient = useQueryClient();
  const { app } = useSession();
  return useMutation<TResult, ApiError, TVariables>({
    mutationFn: (variables) => run(api, variables),
    onSuccess: async () => {
      await Promise.all(
        invalidates.map((prefix) =>
          queryClient.invalidateQueries({
            predicate: (query) =>
              query.queryKey[0] === app &&
              typeof query.queryKey[1] === 'string' &&
              query.queryKey[1].startsWith(prefix),
          }),
        ),
      );
    },
  });
}
