import type { RouteKind } from '@svc/contracts';
import { AppError } from '../../../platform/http/errors.js';
import type { DirectoryServiceType, NodeDirectory } from './node-directory.js';

const EXPECTED: Record<RouteKind, DirectoryServiceType> = {
  node: 'svc-play-agent',
  endpoint: 'manual-play-agent-endpoint',
};
/** Node ids (manual addresses are node records too), per the spec's limits. */
export const NODE_ID_PATTERN = /^node-[A-Za-z0-9_-]{3,60}$/;

const LABEL: Record<RouteKind, string> = {
  node: 'play-agent node',
  endpoint: 'manual reverse-proxy address',
};

/**
 * Every route must name an existing record of its kind (`node`: a play-agent node, `endpoint`: a manual
 * reverse-proxy address, disabled ones included); otherwise 400 UNKNOWN_NODE naming the routes.
 */
export async function assertRoutesExist(
  directory: NodeDirectory,
  routes: readonly { kind: RouteKind; id: string }[],
): Promise<void> {
  if (routes.length === 0) return;
  // Ids that cannot be node ids are unknown without asking.
  const askable = routes.map((route) => route.id).filter((id) => NODE_ID_PATTERN.test(id));
  const found = askable.length > 0 ? await directory.find(askable) : [];
  const types = new Map(found.map((node) => [node.nodeId, node.serviceType]));
  const unknown = routes.filter((route) => types.get(route.id) !== EXPECTED[route.kind]);
  if (unknown.length === 0) return;
  throw new AppError(
    400,
    'UNKNOWN_NODE',
    `unknown ${unknown.map((route) => `${LABEL[route.kind]} '${route.id}'`).join(', ')}`,
    { unknown: unknown.map(({ kind, id }) => ({ kind, id })) },
  );
}
