import { createContext, useContext } from 'react';
import { keepPreviousData, useQuery, type QueryClient, type QueryKey } from '@tanstack/react-query';
import type { z } from 'zod';
import type { EndpointDeclaration, EndpointResponse } from '@svc/contracts';
import type { ApiError, RequestOptions } from '../../api/client.js';
import type { EndpointCall } from '../../api/endpoint-client.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { useApi } from '../../api/hooks.js';
import { useSession, type AppKind } from '../../session/session.js';

/** The storage node requests go to: its id (for cache keys) and the headers that name it, if any. */
export interface StorageTarget {
  nodeId: string | undefined;
  headers: Record<string, string>;
}

export const StorageTargetContext = createContext<StorageTarget>({ nodeId: undefined, headers: {} });

export function useStorageTarget(): StorageTarget {
  return useContext(StorageTargetContext);
}

export interface StorageQueryOptions<T> {
  query?: RequestOptions<T>['query'];
  schema: z.ZodType<T>;
  enabled?: boolean;
  keepPrevious?: boolean;
  refetchInterval?: number | false;
}

/**
 * A GET of the storage API on the current storage node. Cached like useApiQuery ([app, path, query]) plus
 * the node, so useApiMutation's invalidation by path prefix reaches these queries too.
 */
export function useStorageQuery<T>(path: string, options: StorageQueryOptions<T>) {
  const api = useApi();
  const { app } = useSession();
  const target = useStorageTarget();
  return useQuery<T, ApiError>({
    queryKey: [app, path, options.query ?? {}, target.nodeId ?? ''] as QueryKey,
    queryFn: ({ signal }) =>
      api<T>(path, {
        ...(options.query ? { query: options.query } : {}),
        schema: options.schema,
        headers: target.headers,
        signal,
      }),
    enabled: options.enabled ?? true,
    ...(options.keepPrevious ? { placeholderData: keepPreviousData } : {}),
    ...(options.refetchInterval !== undefined ? { refetchInterval: options.refetchInterval } : {}),
  });
}

/**
 * A GET of a declared storage endpoint on the current storage node: cached like useEndpointQuery plus the
 * node, so invalidation by path prefix reaches these queries too.
 */
export function useStorageEndpointQuery<E extends EndpointDeclaration>(
  endpoint: E,
  call: Omit<EndpointCall<E>, 'signal' | 'headers'>,
  options: Omit<StorageQueryOptions<EndpointResponse<E>>, 'schema' | 'query'> = {},
) {
  const target = useStorageTarget();
  return useEndpointQuery(endpoint, { ...call, headers: target.headers } as Omit<EndpointCall<E>, 'signal'>, {
    ...options,
    keyExtra: [target.nodeId ?? ''],
  });
}

/** Fetches again every cached GET of this app whose path starts with `prefix`. */
export function invalidatePath(queryClient: QueryClient, app: AppKind, prefix: string): Promise<void> {
  return queryClient.invalidateQueries({
    predicate: (query) =>
      query.queryKey[0] === app &&
      typeof query.queryKey[1] === 'string' &&
      query.queryKey[1].startsWith(prefix),
  });
}
