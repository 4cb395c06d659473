import { endpoints } from '@svc/contracts';
import { useSession } from '../../session/session.js';
import { storageNodeOptions, type StorageNodeOption } from './storage-nodes.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';

export interface StorageNodes {
  options: StorageNodeOption[];
  /** Several storage nodes exist: requests must name one. */
  several: boolean;
  /** The node list could be read (the account holds the `node` permission). */
  known: boolean;
}

/** The storage nodes from the node list; without the `node` permission the built-in node is assumed. */
export function useStorageNodes(): StorageNodes {
  const session = useSession();
  const allowed = session.can('node');
  const query = useEndpointQuery(endpoints.config.listNodes, {}, { enabled: allowed });
  const options = query.data ? storageNodeOptions(query.data.nodes) : [];
  return { options, several: options.length > 1, known: allowed && query.isSuccess };
}
