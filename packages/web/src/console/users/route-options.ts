import type { NodeView, RouteKind } from '@svc/contracts';
import { ApiError } from '../../api/client.js';

/** A route a user can be given or limited on: a play-agent node (`node`) or a manual address (`endpoint`). */
export interface RouteOption {
  kind: RouteKind;
  id: string;
  name: string;
  disabled: boolean;
}

const KIND_OF_TYPE: Partial<Record<NodeView['serviceType'], RouteKind>> = {
  'svc-play-agent': 'node',
  'manual-play-agent-endpoint': 'endpoint',
};

/** The routes among the node records (storage nodes are no routes), play-agents first, each kind by name. */
export function routeOptionsFrom(
  nodes: readonly Pick<NodeView, 'nodeId' | 'name' | 'serviceType' | 'disabled'>[],
): RouteOption[] {
  const options: RouteOption[] = [];
  for (const node of nodes) {
    const kind = KIND_OF_TYPE[node.serviceType];
    if (kind) options.push({ kind, id: node.nodeId, name: node.name, disabled: node.disabled });
  }
  return options.sort(
    (a, b) =>
      Number(a.kind === 'endpoint') - Number(b.kind === 'endpoint') ||
      a.name.localeCompare(b.name) ||
      a.id.localeCompare(b.id),
  );
}

/** One select value for a route of either kind. */
export function routeValue(route: { kind: RouteKind; id: string }): string {
  return `${route.kind}:${route.id}`;
}

export function parseRouteValue(value: string | null | undefined): { kind: RouteKind; id: string } | null {
  if (!value) return null;
  const separator = value.indexOf(':');
  const kind = value.slice(0, separator);
  const id = value.slice(separator + 1);
  if ((kind !== 'node' && kind !== 'endpoint') || !id) return null;
  return { kind, id };
}

/** "Name (id)" when the route is known, else the id alone. */
export function routeLabel(route: { kind: RouteKind; id: string }, options: readonly RouteOption[]): string {
  const known = options.find((option) => option.kind === route.kind && option.id === route.id);
  return known ? `${known.name} (${known.id})` : route.id;
}

export interface SelectItem {
  value: string;
  label: string;
}

/**
 * Select items of one kind (value = node id), plus the chosen ids the list does not know (a record deleted
 * since), so every chosen id stays visible and can be removed.
 */
export function selectItems(
  options: readonly RouteOption[],
  kind: RouteKind,
  chosen: readonly string[] = [],
): SelectItem[] {
  const items = options
    .filter((option) => option.kind === kind)
    .map((option) => ({ value: option.id, label: `${option.name} (${option.id})` }));
  const known = new Set(items.map((item) => item.value));
  for (const id of chosen) {
    if (!known.has(id)) {
      items.push({ value: id, label: id });
      known.add(id);
    }
  }
  return items;
}

/** The routes a 400 UNKNOWN_NODE answer names (`details.unknown`), or none. */
export function unknownRoutesOf(error: unknown): { kind: RouteKind; id: string }[] {
  if (!(error instanceof ApiError) || error.code !== 'UNKNOWN_NODE') return [];
  const details = error.details as { unknown?: unknown } | undefined;
  if (!details || !Array.isArray(details.unknown)) return [];
  return details.unknown.filter(
    (entry): entry is { kind: RouteKind; id: string } =>
      typeof entry === 'object' &&
      entry !== null &&
      ((entry as { kind?: unknown }).kind === 'node' || (entry as { kind?: unknown }).kind === 'endpoint') &&
      typeof (entry as { id?: unknown }).id === 'string',
  );
}
