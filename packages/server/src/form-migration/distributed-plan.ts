import path from 'node:path';

/**
 * A former built-in worker node, as the copied svc_config holds it. Its tokens are not printed: taking the record
 * over issues new ones (docs/nodes.md, "Former built-in nodes after the edition upgrade").
 */
export interface WorkerNodeRecord {
  nodeId: string;
  serviceType: 'svc-control-storage' | 'svc-play-agent';
}

export interface PlanInput {
  target: { databaseUrl: string; nameSuffix: string };
  configUrl: string | undefined;
  dataDir: string;
  workers: readonly WorkerNodeRecord[];
  showTokens: boolean;
}

/** The node-management request that takes a former built-in record over on its target machine (same id). */
export function takeOverRequest(worker: Pick<WorkerNodeRecord, 'nodeId' | 'serviceType'>): {
  nodeId: string;
  serviceType: WorkerNodeRecord['serviceType'];
  name: string;
  expectedHost: string;
} {
  return {
    nodeId: worker.nodeId,
    serviceType: worker.serviceType,
    name: worker.nodeId,
    expectedHost: '<target machine address>',
  };
}

/** The target URL as roles set it, the password replaced unless tokens are shown. */
function databaseUrlFor(databaseUrl: string, showSecrets: boolean): string {
  const url = new URL(databaseUrl);
  if (url.password && !showSecrets) url.password = '<password>';
  url.pathname = '/';
  return url.href.replace(/\/$/, '');
}

/**
 * What the operator does after the databases are moved, in the spec's order: the four roles on their
 * machines (control first), then the worker nodes on theirs with the original node ids.
 */
export function distributedPlan(input: PlanInput): string[] {
  const configUrl = input.configUrl ?? 'http://<control machine private address>:18085';
  const env = [
    'SVC_DB_MODE=external',
    `SVC_DATABASE_URL=${databaseUrlFor(input.target.databaseUrl, input.showTokens)}`,
    ...(input.target.nameSuffix ? [`SVC_DB_NAME_SUFFIX=${input.target.nameSuffix}`] : []),
    `SVC_SERVICE_TOKEN=<the same on every role and node: ${path.join(input.dataDir, 'secrets', 'service-token')}>`,
    `SVC_CONFIG_BASE_URL=${configUrl}`,
    'SVC_REDIS_URL=redis://<control machine private address>:6379',
  ];
  const lines = [
    '  Roles, in this order, each on its machine of the private network, with these settings:',
    ...env.map((line) => `      ${line}`),
    '    1. svc role control   (config service 18085, internal 18088; the database server beside it)',
    '    2. svc role user      (18082)',
    '    3. svc role media     (18083)',
    '    4. svc role edge      (frontend 18080 and gateway 18086; the only public machine)',
    '  Confirm GET /api/config/deployment/capabilities answers edition=DISTRIBUTED and a deploymentMode that is not standalone.',
    '  Worker nodes, each on its target machine with its original id (media sources and user authorizations name it):',
  ];
  if (input.workers.length === 0) lines.push('    (no former built-in worker node records were found)');
  for (const worker of input.workers) {
    const kind = worker.serviceType === 'svc-control-storage' ? 'storage' : 'play-agent';
    lines.push(`    ${kind} node ${worker.nodeId}:`);
    lines.push(
      '      take the record over in node management (the node, awaiting install on a target machine: "Install on a target machine"' +
        ' opens "add node" with this id and type), or with an admin token:',
    );
    lines.push(
      `      curl -fsS -X POST <edge address>/api/config/nodes -H 'x-admin-token: <admin token>' ` +
        `-H 'content-type: application/json' -d '${JSON.stringify(takeOverRequest(worker))}'`,
    );
    lines.push(
      `      it answers 201 with new tokens and the install commands; on the target machine run its binary one:`,
    );
    lines.push(`      curl -fsSL ${configUrl}/api/config/nodes/install/<the new node token>/binary | bash`);
    if (kind === 'storage') {
      lines.push(
        `      before its first start, copy ${path.join(input.dataDir, 'secrets', 'storage-secret-key')} (sealed drive and WebDAV credentials) ` +
          `and ${path.join(input.dataDir, 'storage', 'uploads')}/ into the node's data folder; give it the database settings above ` +
          '(its yiyi_storage was moved with the others), and the same local mount folders',
      );
    } else {
      lines.push(
        '      its video and image caches may be copied from the old play-agent cache folders, or left to fill again',
      );
    }
  }
  lines.push(
    '  Verify through the new edge (svc doctor, playback, file browsing), then decommission the old standalone.',
    '  Until then the old deployment is unchanged: rollback = stop the roles and start the standalone again.',
  );
  return lines;
}
