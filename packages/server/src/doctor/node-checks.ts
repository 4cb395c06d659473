import type { NodeView } from '@svc/contracts';
import { ok, problem, type CheckResult } from './check-result.js';

/**
 * The troubleshooting lines the node records answer by themselves: manual addresses the application
 * cannot reach, nodes stuck in PENDING, play-agents sharing a listen port, and whether the played URLs
 * carry the proxied playback address. Pure: the CLI and the console can run it on the same node list.
 */
export function nodeChecks(nodes: readonly NodeView[], playbackUrl?: URL): CheckResult[] {
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

  const ports = new Map<string, string[]>();
  for (const node of nodes) {
    if (node.serviceType !== 'svc-play-agent' || node.disabled || node.expectedHost === null) continue;
    const key = `${node.expectedHost.toLowerCase()}:${node.listenPort ?? node.expectedPort ?? ''}`;
    ports.set(key, [...(ports.get(key) ?? []), node.nodeId]);
  }
  const clashes = [...ports].filter(([, ids]) => ids.length > 1);
  results.push(
    clashes.length === 0
      ? ok(
          'play-agent-port',
          'Play-agents on one machine use different ports',
          'no two play-agents share a host and port',
        )
      : problem(
          'play-agent-port',
          'Play-agents on one machine use different ports',
          clashes.map(([where, ids]) => `${ids.join(' and ')} both listen on ${where}`).join('; '),
          'give the second play-agent on a machine its own listen port (19091) in node management and reinstall it',
        ),
  );

  if (playbackUrl) {
    const host = playbackUrl.hostname.toLowerCase();
    // The played URLs of a node come from its own external address, not from a manual address's domain.
    const carried = nodes.some(
      (node) => node.serviceType === 'svc-play-agent' && node.externalAddress?.host.toLowerCase() === host,
    );
    results.push(
      carried
        ? ok(
            'external-address',
            'Played URLs use the playback domain',
            `a node's external address is ${host}`,
          )
        : problem(
            'external-address',
            'Played URLs use the playback domain',
            `no play-agent has the external address ${host}: clients are handed its direct 19090 address`,
            `in node management set the play-agent's external address to https://${host} (port 443)`,
          ),
    );
  }
  return results;
}
