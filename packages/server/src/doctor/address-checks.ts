import { PROXY_PROBE_ROUTE_HEADER, type NodeView } from '@svc/contracts';
import { nonPublicAddressOf } from '../platform/http/address-policy.js';
import { ok, problem, skipped, type CheckResult } from './check-result.js';
import { probe } from './http-probe.js';
import { at, PROBE_PATH } from './proxy-checks.js';
import type { Dispatcher } from 'undici';

/** How the doctor reaches addresses: its HTTP client, and whether the caller may aim it at an address. */
export interface DoctorReach {
  dispatcher: Dispatcher;
  /** Why `url` may not be probed for this caller (docs/auth.md, server-side fetches), or null. */
  refusal(url: URL): Promise<string | null>;
}

/** The CLI runs on the operator's machine with the operator's rights: every address may be probed. */
export const unrestricted = (dispatcher: Dispatcher): DoctorReach => ({
  dispatcher,
  refusal: async () => null,
});

const PROBE_TIMEOUT_MS = 30_000;

/** Whether a play-agent answers the probe at `base`, or what answered instead. */
async function playAgentAt(reach: DoctorReach, base: URL): Promise<{ answered: boolean; detail: string }> {
  try {
    const answer = await probe(
      reach.dispatcher,
      at(base, PROBE_PATH),
      { range: 'bytes=0-0' },
      PROBE_TIMEOUT_MS,
    );
    return answer.headers[PROXY_PROBE_ROUTE_HEADER] !== undefined
      ? { answered: true, detail: `a play-agent answered ${answer.status}` }
      : { answered: false, detail: `answered ${answer.status} without the play-agent's probe` };
  } catch (error) {
    return { answered: false, detail: `no answer: ${(error as Error).message}` };
  }
}

const activePlayAgents = (nodes: readonly NodeView[]) =>
  nodes.filter((node) => node.serviceType === 'svc-play-agent' && !node.disabled);

const externalUrl = (address: NonNullable<NodeView['externalAddress']>) => new URL(address.url);

/**
 * Clients handed an internal address: the played URLs of each play-agent come from its external address
 * (else its direct address). A set external address must reach a play-agent; an unset one hands out the
 * direct address, wrong when it is private or when playback goes through a proxy (a manual address exists).
 */
async function externalAddressOf(
  reach: DoctorReach,
  node: NodeView,
  proxied: readonly string[],
): Promise<CheckResult> {
  const title = 'Clients are handed a reachable playback address';
  const subject = node.nodeId;
  const fix = `in node management set the external address (https, the playback domain, port 443) of ${node.nodeId} to the playback site that forwards to it`;
  if (node.externalAddress) {
    const url = externalUrl(node.externalAddress);
    const refused = await reach.refusal(url);
    if (refused) return { ...skipped('external-address', title, refused), subject };
    const found = await playAgentAt(reach, url);
    return found.answered
      ? { ...ok('external-address', title, `played URLs use ${url.origin}: ${found.detail}`), subject }
      : {
          ...problem(
            'external-address',
            title,
            `played URLs use ${url.origin}, which does not reach a play-agent (${found.detail})`,
            fix,
          ),
          subject,
        };
  }
  const port = node.listenPort ?? node.expectedPort;
  if (node.expectedHost !== null) {
    const inside = await nonPublicAddressOf(node.expectedHost);
    if (inside)
      return {
        ...problem(
          'external-address',
          title,
          `no external address: clients are handed the internal address ${node.expectedHost}:${port} (${inside.range})`,
          fix,
        ),
        subject,
      };
  }
  if (proxied.length > 0 && node.expectedHost === null)
    return {
      ...problem(
        'external-address',
        title,
        `no external address: clients are handed the direct address on port ${port} although playback is proxied (${proxied.join(', ')})`,
        fix,
      ),
      subject,
    };
  return {
    ...ok(
      'external-address',
      title,
      `no external address: clients are handed the direct address${node.expectedHost ? ` ${node.expectedHost}:${port}` : ` on port ${port}`}`,
    ),
    subject,
  };
}

/** The external address of every play-agent, and (CLI) that one of them carries the proxied playback domain. */
export async function externalAddressChecks(
  reach: DoctorReach,
  nodes: readonly NodeView[],
  playbackUrl?: URL,
): Promise<CheckResult[]> {
  const proxied = nodes
    .filter((node) => node.serviceType === 'manual-play-agent-endpoint' && !node.disabled)
    .map((node) => node.externalAddress?.host ?? node.name);
  const results = await Promise.all(
    activePlayAgents(nodes).map((node) => externalAddressOf(reach, node, proxied)),
  );
  if (playbackUrl) {
    const host = playbackUrl.hostname.toLowerCase();
    const carried = activePlayAgents(nodes).some((node) => node.externalAddress?.host.toLowerCase() === host);
    results.push({
      ...(carried
        ? ok(
            'external-address',
            'Played URLs use the playback domain',
            `a play-agent's external address is ${host}`,
          )
        : problem(
            'external-address',
            'Played URLs use the playback domain',
            `no play-agent has the external address ${host}: clients are handed its direct 19090 address`,
            `in node management set the play-agent's external address to https://${host} (port 443)`,
          )),
      subject: playbackUrl.origin,
    });
  }
  return results;
}

/**
 * A second play-agent on one machine that fails to start: two records on one host and port, or a
 * play-agent that is not running while its host and listen port answer as a play-agent (another one
 * holds the port).
 */
export async function playAgentPortChecks(
  reach: DoctorReach,
  nodes: readonly NodeView[],
): Promise<CheckResult[]> {
  const title = 'Play-agents on one machine use different ports';
  const fixFor = (nodeId: string) =>
    `give ${nodeId} its own listen port (19091 for a second play-agent on the machine) in node management and reinstall it`;
  const placed = activePlayAgents(nodes).filter((node) => node.expectedHost !== null);
  const ports = new Map<string, string[]>();
  for (const node of placed) {
    const key = `${node.expectedHost!.toLowerCase()}:${node.listenPort ?? node.expectedPort ?? ''}`;
    ports.set(key, [...(ports.get(key) ?? []), node.nodeId]);
  }
  const results: CheckResult[] = [...ports]
    .filter(([, ids]) => ids.length > 1)
    .map(([where, ids]) => ({
      ...problem(
        'play-agent-port',
        title,
        `${ids.join(' and ')} both listen on ${where}`,
        fixFor(ids.at(-1)!),
      ),
      subject: where,
    }));
  const stopped = placed.filter((node) => node.status !== 'ONLINE');
  for (const node of stopped) {
    const host = node.expectedHost!.includes(':') ? `[${node.expectedHost}]` : node.expectedHost;
    const where = `${host}:${node.listenPort ?? node.expectedPort}`;
    const base = new URL(`http://${where}`);
    const refused = await reach.refusal(base);
    if (refused) {
      results.push({ ...skipped('play-agent-port', title, refused), subject: node.nodeId });
      continue;
    }
    const found = await playAgentAt(reach, base);
    if (found.answered)
      results.push({
        ...problem(
          'play-agent-port',
          title,
          `${node.nodeId} is ${node.status} while another play-agent answers on ${where}: it cannot listen there (port conflict)`,
          fixFor(node.nodeId),
        ),
        subject: node.nodeId,
      });
  }
  return results.length > 0
    ? results
    : [ok('play-agent-port', title, 'no play-agent is kept from its listen port by another one')];
}
