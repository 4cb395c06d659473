import { createContext, useContext } from 'react';
import type { EndpointDeclaration } from '@svc/contracts';
import type { EndpointCall } from '../../api/endpoint-client.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';

/** The storage node requests go to: its id (for cache keys) and the headers that name it, if any. */
export interface StorageTarget {
  nodeId: string | undefined;
  headers: Record<string, string>;
}

export const StorageTargetContext = createContext<StorageTarget>({ nodeId: undefined, headers: {} });

export function useStorageTarget(): StorageTarget {
  return useContext(StorageTargetContext);
}

export interface StorageQueryOptions {
  enabled?: boolean;
  keepPrevious?: boolean;
  refetchInterval?: number | false;
}

/**
 * A GET of a declared storage endpoint on the current storage node: cached like useEndpointQuery plus the
 * node, so invalidation by path prefix reaches these queries too.
 */
export function useStorageEndpointQuery<E extends EndpointDeclaration>(
  endpoint: E,
  call: Omit<EndpointCall<E>, 'signal' | 'headers'>,
  options: StorageQueryOptions = {},
) {
  const target = useStorageTarget();
  return useEndpointQuery(endpoint, { ...call, headers: target.headers } as Omit<EndpointCall<E>, 'signal'>, {
    ...options,
    keyExtra: [target.nodeId ?? ''],
  });
}
