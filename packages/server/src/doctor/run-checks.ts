import type { NodeView } from '@svc/contracts';
import { externalAddressChecks, playAgentPortChecks, type DoctorReach } from './address-checks.js';
import { problem, skipped, type CheckResult } from './check-result.js';
import { nodeChecks } from './node-checks.js';
import { consoleChecks, playbackChecks } from './proxy-checks.js';

/** One playback site to check; `expectedRoute` is the manual address (node id) its token must name. */
export interface PlaybackTarget {
  url: URL;
  expectedRoute?: string;
}

/** The console site's event-stream probe: the URL (with its pause) and the headers that open it. */
export interface ConsoleTarget {
  probeUrl(holdMs: number): URL;
  headers: Record<string, string>;
}

/**
 * What to check: the same plan runs from `svc doctor` (the operator's machine, an admin token) and from the
 * console's Diagnostics page (the application, with the caller's address rights). docs/reverse-proxy.md.
 */
export interface DoctorPlan {
  reach: DoctorReach;
  holdMs: number;
  playback: readonly PlaybackTarget[];
  /** Null: the console site is not checked (said so in a skipped line). */
  console: ConsoleTarget | null;
  nodes(): Promise<readonly NodeView[]>;
  /** The proxied playback domain the played URLs should carry (the CLI's --playback). */
  playbackUrl?: URL;
}

async function playbackSite(plan: DoctorPlan, target: PlaybackTarget): Promise<CheckResult[]> {
  const refused = await plan.reach.refusal(target.url);
  if (refused)
    return [
      {
        ...skipped('playback-site', 'Playback domain reaches the play-agent', refused),
        subject: target.url.origin,
      },
    ];
  return playbackChecks(plan.reach.dispatcher, target.url, plan.holdMs, target.expectedRoute);
}

async function consoleSite(plan: DoctorPlan): Promise<CheckResult[]> {
  if (plan.console === null)
    return [skipped('console-site', 'Console site answers', 'no console address was given')];
  const url = plan.console.probeUrl(plan.holdMs);
  const refused = await plan.reach.refusal(url);
  if (refused) return [{ ...skipped('console-site', 'Console site answers', refused), subject: url.origin }];
  return consoleChecks(plan.reach.dispatcher, url, plan.console.headers, plan.holdMs);
}

async function nodeRecords(plan: DoctorPlan): Promise<CheckResult[]> {
  let nodes: readonly NodeView[];
  try {
    nodes = await plan.nodes();
  } catch (error) {
    return [
      problem(
        'nodes',
        'Node records readable',
        (error as Error).message,
        'check the console URL, that the console site answers and that the token has the node permission',
      ),
    ];
  }
  const [external, ports] = await Promise.all([
    externalAddressChecks(plan.reach, nodes, plan.playbackUrl),
    playAgentPortChecks(plan.reach, nodes),
  ]);
  const [manual, pending] = nodeChecks(nodes);
  return [manual!, ...external, pending!, ...ports];
}

/** Every line of the troubleshooting list, in its order; the held probes run side by side. */
export async function runChecks(plan: DoctorPlan): Promise<CheckResult[]> {
  const [playback, consoleResults, nodes] = await Promise.all([
    plan.playback.length === 0
      ? [
          [
            skipped(
              'playback-site',
              'Playback domain reaches the play-agent',
              'no playback address to check: register the proxied playback domain as a manual address (or pass --playback)',
            ),
          ],
        ]
      : Promise.all(plan.playback.map((target) => playbackSite(plan, target))),
    consoleSite(plan),
    nodeRecords(plan),
  ]);
  return [...playback.flat(), ...consoleResults, ...nodes];
}
