import { useCallback } from 'react';
import {
  keepPreviousData,
  useMutation,
  useQuery,
  useQueryClient,
  type Query,
  type QueryClient,
  type QueryKey,
  type UseQueryOptions,
} from '@tanstack/react-query';
import type { EndpointDeclaration, EndpointResponse, EndpointService } from '@svc/contracts';
import { useSession, type AppKind } from '../session/session.js';
import type { ApiError } from './client.js';
import {
  callEndpoint,
  endpointPath,
  type EndpointCall,
  type EndpointCallArgs,
  type EndpointCaller,
  type LooseCall,
} from './endpoint-client.js';

/** callEndpoint bound to the signed-in account's tokens. */
export function useEndpoint(): EndpointCaller {
  const { credentials } = useSession();
  return useCallback(
    <E extends EndpointDeclaration>(endpoint: E, ...args: EndpointCallArgs<E>) =>
      callEndpoint(credentials, endpoint, ...args),
    [credentials],
  );
}

export interface EndpointQueryOptions<T> {
  enabled?: boolean;
  refetchInterval?: UseQueryOptions<T, ApiError>['refetchInterval'];
  /** Keep showing the previous answer while a new key loads (paging, search). */
  keepPrevious?: boolean;
  /** More of the cache key (the storage node a storage request goes to). */
  keyExtra?: readonly unknown[];
  /** How long an answer counts as fresh (default: stale at once, React Query's default). */
  staleTime?: number;
}

/** The cache key of a GET: the app, the filled path and the query (invalidated by path prefix). */
export function endpointQueryKey(app: AppKind, endpoint: EndpointDeclaration, call: LooseCall): QueryKey {
  return [app, endpointPath(endpoint, call.params), call.query ?? {}];
}

/** A GET of a declared endpoint, cached under its filled path and query; the answer is parsed by its schema. */
export function useEndpointQuery<E extends EndpointDeclaration>(
  endpoint: E,
  call: Omit<EndpointCall<E>, 'signal'>,
  options: EndpointQueryOptions<EndpointResponse<E>> = {},
) {
  const { credentials, app } = useSession();
  const loose = call as LooseCall;
  return useQuery<EndpointResponse<E>, ApiError>({
    queryKey: [...endpointQueryKey(app, endpoint, loose), ...(options.keyExtra ?? [])],
    queryFn: ({ signal }) =>
      callEndpoint(credentials, endpoint, ...([{ ...call, signal }] as unknown as EndpointCallArgs<E>)),
    meta: { service: endpoint.service },
    enabled: options.enabled ?? true,
    ...(options.refetchInterval !== undefined ? { refetchInterval: options.refetchInterval } : {}),
    ...(options.keepPrevious ? { placeholderData: keepPreviousData } : {}),
    ...(options.staleTime !== undefined ? { staleTime: options.staleTime } : {}),
  });
}

/**
 * What a change makes stale: a path prefix (build it with endpointPath), an endpoint (every cached GET under
 * its path up to the first parameter) or a whole service (`{ service: 'config' }`).
 */
export type Invalidation = string | Pick<EndpointDeclaration, 'path'> | { readonly service: EndpointService };

function matches(query: Query, app: AppKind, target: Invalidation): boolean {
  if (query.queryKey[0] !== app) return false;
  if (typeof target === 'object' && 'service' in target) return query.meta?.['service'] === target.service;
  const prefix = typeof target === 'string' ? target : target.path.split('{')[0]!;
  const path = query.queryKey[1];
  return typeof path === 'string' && path.startsWith(prefix);
}

/** Fetches again every cached GET of this app that one of the targets names. */
export function invalidateEndpoints(
  queryClient: QueryClient,
  app: AppKind,
  targets: readonly Invalidation[],
): Promise<void> {
  return queryClient.invalidateQueries({
    predicate: (query) => targets.some((target) => matches(query, app, target)),
  });
}

/** A change through declared endpoints; afterwards every cached GET that `invalidates` names is fetched again. */
export function useEndpointMutation<TVariables, TResult = unknown>(
  run: (call: EndpointCaller, variables: TVariables) => Promise<TResult>,
  invalidates: readonly Invalidation[] = [],
) {
  const call = useEndpoint();
  const queryClient = useQueryClient();
  const { app } = useSession();
  return useMutation<TResult, ApiError, TVariables>({
    mutationFn: (variables) => run(call, variables),
    onSuccess: async () => {
      if (invalidates.length > 0) await invalidateEndpoints(queryClient, app, invalidates);
    },
  });
}
