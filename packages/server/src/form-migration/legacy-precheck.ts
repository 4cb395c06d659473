import { setEnvironmentVariables } from './env-file.js';
import {
  describeImpact,
  KIND_VARIABLES,
  legacyImpactReport,
  type LegacyImpactReport,
  type LegacyNodeKind,
} from './legacy-impact.js';
import { describeLegacy, openLegacy, withLegacyControl, type LegacyLayout } from './legacy-layout.js';

export interface LegacyPrecheckResult {
  report: LegacyImpactReport;
  /** Variables written into the environment file; null when a choice is required (nothing written). */
  written: Record<string, string> | null;
}

/**
 * `svc migrate legacy-precheck`: reads the legacy databases (read-only snapshots, nothing changed there) and
 * either writes SVC_EMBEDDED_STORAGE_NODE_ID / SVC_EMBEDDED_PLAY_AGENT_NODE_ID into the environment file
 * (at most one node of each type) or stops with the impact report (several of a type: the administrator
 * chooses, then runs legacy-promote with the chosen ids).
 */
export async function legacyPrecheck(options: {
  layout: LegacyLayout;
  envFile: string;
  out: (line: string) => void;
}): Promise<LegacyPrecheckResult> {
  const { layout, out } = options;
  out(`legacy databases: ${describeLegacy(layout)}`);
  // The storage database must be readable too, though the report needs only the control ones.
  const storage = await openLegacy(layout, 'yiyi_storage');
  await storage.close();
  const report = await withLegacyControl(layout, (dbs) =>
    legacyImpactReport({ config: dbs.config.db, user: dbs.user.db, media: dbs.media.db }),
  );
  for (const line of describeImpact(report)) out(line);
  if (report.choiceRequired.storage || report.choiceRequired.playAgent) {
    out(
      'more than one node of a type: automatic migration stops here, nothing was written. Choose the node to keep ' +
        'of each type and run svc migrate legacy-promote --storage-node <id> --play-agent-node <id> --confirm; ' +
        'the others are disabled and their records kept.',
    );
    return { report, written: null };
  }
  const written: Record<string, string> = {};
  for (const kind of ['storage', 'playAgent'] as LegacyNodeKind[]) {
    const node = report[kind][0];
    if (node) written[KIND_VARIABLES[kind]] = node.nodeId;
  }
  if (Object.keys(written).length > 0) await setEnvironmentVariables(options.envFile, written);
  out(
    `one node of each type: wrote ${
      Object.entries(written)
        .map(([name, value]) => `${name}=${value}`)
        .join(' ') || 'nothing (no legacy worker node)'
    } into ${options.envFile}`,
  );
  return { report, written };
}
