import type { NodeAccess, NodeAccessEntry, NodeAccessMode } from '@svc/contracts';

/** The node access form: the mode, and the chosen play-agent nodes and manual addresses (by node id). */
export interface NodeAccessValues {
  mode: NodeAccessMode;
  nodes: string[];
  endpoints: string[];
}

export function nodeAccessValuesFrom(access: { mode: NodeAccessMode; entries: readonly NodeAccessEntry[] }) {
  return {
    mode: access.mode,
    nodes: access.entries.filter((entry) => entry.kind === 'node').map((entry) => entry.id),
    endpoints: access.entries.filter((entry) => entry.kind === 'endpoint').map((entry) => entry.id),
  } satisfies NodeAccessValues;
}

function cleanIds(ids: readonly string[]): string[] {
  return [...new Set(ids.map((id) => id.trim()).filter((id) => id !== ''))];
}

/**
 * PUT /api/auth/admin/users/:id/node-access: the lists only with ALLOW_LIST (the server refuses entries
 * under another mode), play-agent nodes first; ids trimmed, each once.
 */
export function toNodeAccessBody(values: NodeAccessValues): NodeAccess {
  if (values.mode !== 'ALLOW_LIST') return { mode: values.mode, entries: [] };
  return {
    mode: 'ALLOW_LIST',
    entries: [
      ...cleanIds(values.nodes).map((id) => ({ kind: 'node' as const, id })),
      ...cleanIds(values.endpoints).map((id) => ({ kind: 'endpoint' as const, id })),
    ],
  };
}

/**
 * The schema reports problems of the body's `entries.N…`; the form shows them on the list they came from
 * (the first entries are the play-agent nodes).
 */
export function nodeAccessFormErrors(errors: Record<string, string>, values: NodeAccessValues) {
  const nodeCount = cleanIds(values.nodes).length;
  const mapped: Record<string, string> = {};
  for (const [path, message] of Object.entries(errors)) {
    const match = /^entries\.(\d+)/.exec(path);
    const field = match ? (Number(match[1]) < nodeCount ? 'nodes' : 'endpoints') : path;
    mapped[field] ??= message;
  }
  return mapped;
}
