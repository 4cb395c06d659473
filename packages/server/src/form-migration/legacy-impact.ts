import { sql, type Kysely, type RawBuilder } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- read through plain SQL
type AnyDb = Kysely<any>;

export type LegacyNodeKind = 'storage' | 'playAgent';

export const KIND_TYPES: Record<LegacyNodeKind, 'svc-control-storage' | 'svc-play-agent'> = {
  storage: 'svc-control-storage',
  playAgent: 'svc-play-agent',
};

export const KIND_VARIABLES: Record<LegacyNodeKind, string> = {
  storage: 'SVC_EMBEDDED_STORAGE_NODE_ID',
  playAgent: 'SVC_EMBEDDED_PLAY_AGENT_NODE_ID',
};

/** What depends on one legacy worker node: what is lost (or must be redone) if it is not the one kept. */
export interface NodeImpact {
  nodeId: string;
  name: string;
  /** Library sources (svc_media.library_sources) on this storage node. */
  mediaSources: number;
  /** Users whose node access lists this node, plus per-route quotas naming it (svc_user). */
  userAuthorizations: number;
  /** Scans (svc_media.media_scans) scoped to a source on this node, and play-agent cache settings. */
  taskReferences: number;
}

export interface LegacyImpactReport {
  storage: NodeImpact[];
  playAgent: NodeImpact[];
  /** Manual reverse-proxy addresses: they survive any choice, with their endpoint tokens. */
  manualProxies: { total: number; enabled: number };
  /** Per kind: the ids to choose from (EXTERNAL, not disabled). */
  choiceRequired: Record<LegacyNodeKind, boolean>;
}

async function count(db: AnyDb, query: RawBuilder<{ n: number }>): Promise<number> {
  const { rows } = await query.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** The impact report, read in read-only snapshots of the three control databases. */
export async function legacyImpactReport(dbs: {
  config: AnyDb;
  user: AnyDb;
  media: AnyDb;
}): Promise<LegacyImpactReport> {
  const readOnly = <T>(db: AnyDb, work: (trx: AnyDb) => Promise<T>) =>
    db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(work);

  return readOnly(dbs.config, async (config) => {
    const { rows: nodes } = await sql<{ node_id: string; name: string; service_type: string }>`
      SELECT node_id, name, service_type FROM nodes
       WHERE scope = 'EXTERNAL' AND NOT disabled AND service_type IN ('svc-control-storage', 'svc-play-agent')
       ORDER BY node_id`.execute(config);
    const manual = await sql<{ total: number; enabled: number }>`
      SELECT count(*)::int AS total, count(*) FILTER (WHERE NOT disabled)::int AS enabled
        FROM nodes WHERE service_type = 'manual-play-agent-endpoint'`.execute(config);

    const impacts: LegacyImpactReport = {
      storage: [],
      playAgent: [],
      manualProxies: manual.rows[0] ?? { total: 0, enabled: 0 },
      choiceRequired: { storage: false, playAgent: false },
    };
    for (const node of nodes) {
      const id = node.node_id;
      const kind: LegacyNodeKind = node.service_type === 'svc-control-storage' ? 'storage' : 'playAgent';
      const routeEntry = JSON.stringify([{ kind: 'node', id }]);
      const [mediaSources, scans, access, quotas, cacheSettings] = await Promise.all([
        readOnly(dbs.media, (media) =>
          count(
            media,
            sql<{ n: number }>`SELECT count(*)::int AS n FROM library_sources WHERE node_id = ${id}`,
          ),
        ),
        readOnly(dbs.media, (media) =>
          count(
            media,
            sql<{ n: number }>`SELECT count(*)::int AS n FROM media_scans s
                                 JOIN library_sources l ON l.id = s.scope_source_id WHERE l.node_id = ${id}`,
          ),
        ),
        readOnly(dbs.user, (user) =>
          count(
            user,
            sql<{
              n: number;
            }>`SELECT count(*)::int AS n FROM user_node_access WHERE entries @> ${routeEntry}::jsonb`,
          ),
        ),
        readOnly(dbs.user, (user) =>
          count(
            user,
            sql<{ n: number }>`SELECT count(*)::int AS n FROM user_quotas
                                WHERE target_kind = 'node' AND target_id = ${id}`,
          ),
        ),
        count(
          config,
          sql<{ n: number }>`SELECT count(*)::int AS n FROM node_cache_configs WHERE node_id = ${id}`,
        ),
      ]);
      impacts[kind].push({
        nodeId: id,
        name: node.name,
        mediaSources,
        userAuthorizations: access + quotas,
        taskReferences: scans + cacheSettings,
      });
    }
    impacts.choiceRequired = { storage: impacts.storage.length > 1, playAgent: impacts.playAgent.length > 1 };
    return impacts;
  });
}

/** The report as lines for the terminal. */
export function describeImpact(report: LegacyImpactReport): string[] {
  const lines: string[] = [];
  for (const kind of ['storage', 'playAgent'] as const) {
    const nodes = report[kind];
    const label = kind === 'storage' ? 'storage nodes' : 'play-agent nodes';
    lines.push(`  ${label}: ${nodes.length}${report.choiceRequired[kind] ? ' (choose one to keep)' : ''}`);
    for (const node of nodes) {
      lines.push(
        `    ${node.nodeId} (${node.name}): ${node.mediaSources} media sources, ${node.userAuthorizations} user ` +
          `authorizations, ${node.taskReferences} task references`,
      );
    }
  }
  lines.push(
    `  manual proxies: ${report.manualProxies.total} (${report.manualProxies.enabled} enabled), kept with their endpoint tokens`,
  );
  return lines;
}
