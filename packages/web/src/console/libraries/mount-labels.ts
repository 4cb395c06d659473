import { useMemo } from 'react';
import { endpoints, type LibrarySource } from '@svc/contracts';
import { useSession } from '../../session/session.js';
import { useStorageEndpointQuery } from '../storage/storage-query.js';

/**
 * Names of the storage node's mounts by id, to show library sources readably; empty without the
 * `storage` permission (sources then show the mount id).
 */
export function useMountLabels(): ReadonlyMap<string, string> {
  const session = useSession();
  const mounts = useStorageEndpointQuery(
    endpoints.storage.listMounts,
    {},
    { enabled: session.can('storage') },
  );
  return useMemo(
    () => new Map((mounts.data?.mounts ?? []).map((mount) => [mount.id, mount.name] as const)),
    [mounts.data],
  );
}

/** A source as one line: the mount's name (else its id) and the folder. */
export function sourceLabel(
  source: Pick<LibrarySource, 'mountId' | 'path'>,
  labels: ReadonlyMap<string, string>,
) {
  const path = source.path.startsWith('/') ? source.path : `/${source.path}`;
  return `${labels.get(source.mountId) ?? source.mountId}: ${path}`;
}
