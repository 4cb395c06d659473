import { sql, type Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- read through plain SQL
type AnyDb = Kysely<any>;

/** One item of the post-migration checklist, checked from the databases and the environment file. */
export interface ChecklistItem {
  item: string;
  ok: boolean;
  detail: string;
}

/** Facts compared before (legacy) and after (standalone). */
export interface RouteFacts {
  /** Manual addresses: node id → endpoint token. */
  endpointTokens: Record<string, string>;
  /** Library sources whose storage node is missing or disabled. */
  lostSources: number;
  /** Node-access entries and route quotas naming a node or address that does not exist. */
  danglingAuthorizations: number;
  /** Library sources in all. */
  sources: number;
  /** Users with a node-access list, and route quotas. */
  authorizations: number;
}

/** Reads the route facts of an install from its three control databases. */
export async function routeFacts(dbs: { config: AnyDb; user: AnyDb; media: AnyDb }): Promise<RouteFacts> {
  const { rows: nodes } = await sql<{
    node_id: string;
    service_type: string;
    disabled: boolean;
    endpoint_token: string | null;
  }>`SELECT node_id, service_type, disabled, endpoint_token FROM nodes`.execute(dbs.config);
  const known = new Set(nodes.map((node) => node.node_id));
  const usableStorage = new Set(
    nodes
      .filter((node) => node.service_type === 'svc-control-storage' && !node.disabled)
      .map((node) => node.node_id),
  );
  const endpointTokens: Record<string, string> = {};
  for (const node of nodes) {
    if (node.service_type === 'manual-play-agent-endpoint')
      endpointTokens[node.node_id] = node.endpoint_token ?? '';
  }
  const { rows: sources } = await sql<{ node_id: string }>`SELECT node_id FROM library_sources`.execute(
    dbs.media,
  );
  const { rows: access } = await sql<{ entries: { kind: string; id: string }[] }>`
    SELECT entries FROM user_node_access WHERE mode = 'ALLOW_LIST'`.execute(dbs.user);
  const { rows: quotas } = await sql<{ target_id: string }>`
    SELECT target_id FROM user_quotas WHERE scope = 'route'`.execute(dbs.user);
  const entries = access.flatMap((row) => row.entries);
  return {
    endpointTokens,
    lostSources: sources.filter((source) => !usableStorage.has(source.node_id)).length,
    danglingAuthorizations:
      entries.filter((entry) => !known.has(entry.id)).length +
      quotas.filter((quota) => !known.has(quota.target_id)).length,
    sources: sources.length,
    authorizations: access.length + quotas.length,
  };
}

export interface ChecklistInput {
  chosen: { storage: string | undefined; playAgent: string | undefined };
  /** The standalone's svc_config after promotion. */
  config: AnyDb;
  before: RouteFacts;
  after: RouteFacts;
  /** Sources the impact report counted on the unchosen storage nodes (they are expected to be lost). */
  expectedLostSources: number;
  /** Environment file values of the two variables. */
  environment: { storage: string | undefined; playAgent: string | undefined };
  /** Worker records of the legacy install (EXTERNAL storage / play-agent, disabled ones included). */
  legacyWorkerIds: string[];
}

/**
 * The spec's checklist, as far as the data shows it (the running services are checked after start: both
 * built-in nodes ONLINE with these ids, browsing, playback).
 */
export async function legacyChecklist(input: ChecklistInput): Promise<ChecklistItem[]> {
  const items: ChecklistItem[] = [];
  const { rows: nodes } = await sql<{
    node_id: string;
    service_type: string;
    scope: string;
    disabled: boolean;
  }>`
    SELECT node_id, service_type, scope, disabled FROM nodes`.execute(input.config);
  const byId = new Map(nodes.map((node) => [node.node_id, node]));
  for (const kind of ['storage', 'playAgent'] as const) {
    const id = input.chosen[kind];
    if (id === undefined) continue;
    const node = byId.get(id);
    const label = kind === 'storage' ? 'built-in storage node' : 'built-in play-agent node';
    items.push({
      item: `${label} keeps its id`,
      ok: node?.scope === 'EMBEDDED' && !node.disabled && input.environment[kind] === id,
      detail: `${id}: scope ${node?.scope ?? 'missing'}, environment file ${input.environment[kind] ?? 'unset'}`,
    });
  }
  const kept = input.legacyWorkerIds.filter((id) => byId.has(id));
  const chosenIds = new Set(Object.values(input.chosen).filter((id) => id !== undefined));
  const unchosen = input.legacyWorkerIds.filter((id) => !chosenIds.has(id));
  items.push({
    item: 'unchosen nodes disabled, records kept',
    ok:
      kept.length === input.legacyWorkerIds.length && unchosen.every((id) => byId.get(id)?.disabled === true),
    detail: `${kept.length} of ${input.legacyWorkerIds.length} legacy worker records kept; disabled: ${unchosen.join(', ') || 'none'}`,
  });
  items.push({
    item: 'media sources',
    ok:
      input.after.sources === input.before.sources &&
      input.after.lostSources <= input.before.lostSources + input.expectedLostSources,
    detail:
      `${input.after.sources} sources, ${input.after.lostSources} on a disabled or missing storage node ` +
      `(${input.before.lostSources} before, ${input.expectedLostSources} on the unchosen nodes)`,
  });
  items.push({
    item: 'user route authorizations',
    ok:
      input.after.authorizations === input.before.authorizations &&
      input.after.danglingAuthorizations <= input.before.danglingAuthorizations,
    detail: `${input.after.authorizations} access lists and route quotas, ${input.after.danglingAuthorizations} naming an unknown route`,
  });
  const tokensEqual =
    JSON.stringify(Object.entries(input.after.endpointTokens).sort()) ===
    JSON.stringify(Object.entries(input.before.endpointTokens).sort());
  items.push({
    item: 'manual addresses with unchanged endpoint tokens',
    ok: tokensEqual,
    detail: `${Object.keys(input.after.endpointTokens).length} manual addresses`,
  });
  return items;
}
