import type { NodeView } from '@svc/contracts';
import { ok, problem, type CheckResult } from './check-result.js';

/**
 * The troubleshooting lines the node records answer by themselves: manual addresses the application
 * cannot reach (its own /health probe found them offline) and nodes stuck in PENDING.
 */
export function nodeChecks(nodes: readonly NodeView[]): CheckResult[] {
  const manual = nodes.filter((node) => node.serviceType === 'manual-play-agent-endpoint' && !node.disabled);
  const offline = manual.filter((node) => node.status === 'offline');
  const results: CheckResult[] = [
    offline.length === 0
      ? ok(
          'manual-address-reachable',
          'Manual addresses reachable',
          `${manual.length} manual address(es), none offline`,
        )
      : problem(
          'manual-address-reachable',
          'Manual addresses reachable',
          offline
            .map(
              (node) =>
                `${node.name}: ${node.probe?.detail ?? 'offline'} (${node.externalAddress?.url ?? ''}/health)`,
            )
            .join('; '),
          'let the application reach the playback domain outbound (DNS, firewall, certificate): it probes GET https://<domain>/health',
        ),
  ];

  const pending = nodes.filter(
    (node) =>
      node.serviceType !== 'manual-play-agent-endpoint' && !node.disabled && node.status === 'PENDING',
  );
  results.push(
    pending.length === 0
      ? ok('node-pending', 'No node stuck in PENDING', 'every worker node has sent a heartbeat')
      : problem(
          'node-pending',
          'No node stuck in PENDING',
          `never registered: ${pending.map((node) => node.nodeId).join(', ')}`,
          'on the node machine, check it reaches the config service on port 18085 (SVC_CONFIG_BASE_URL) and that its registry token and SVC_SERVICE_TOKEN equal the ones in node management',
        ),
  );

  return results;
}
