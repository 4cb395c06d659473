import { randomBytes, randomUUID } from 'node:crypto';
import type { DiagnosticCheck, DiagnosticsRun, Identity, NodeView } from '@svc/contracts';
import type { Cache, Clock } from '../../../platform/cache/index.js';
import { nonPublicAddressOf, systemResolver } from '../../../platform/http/address-policy.js';
import { AppError } from '../../../platform/http/errors.js';
import type { Logger } from '../../../platform/logger.js';
import type { DoctorReach } from '../../../doctor/address-checks.js';
import { problem } from '../../../doctor/check-result.js';
import { probeDispatcher, type ProbeClientOptions } from '../../../doctor/http-probe.js';
import { at, STREAM_PROBE_PATH } from '../../../doctor/proxy-checks.js';
import { runChecks } from '../../../doctor/run-checks.js';

/** How long a finished run can be read back. */
const RUN_TTL_MS = 15 * 60_000;
const runKey = (runId: string) => `diagnostics:run:${runId}`;
const ticketKey = (ticket: string) => `diagnostics:ticket:${ticket}`;

export interface DiagnosticsRunsOptions {
  nodes: () => Promise<readonly NodeView[]>;
  /** Shared by the config instances (Redis in a distributed install): a run is read from any of them. */
  cache: Cache;
  clock: Clock;
  logger: Logger;
  /** The probes' HTTP client settings (tests: their CA and name overrides); the system's by default. */
  client?: ProbeClientOptions;
}

export interface RunRequest {
  actor: Identity;
  /** The console's origin as the browser reaches it; checked against `entranceHost`. */
  consoleUrl?: string | undefined;
  /** The host the request came through (X-SVC-Entrance-Host), if any. */
  entranceHost: string | undefined;
  holdSeconds: number;
}

const hostnameOfEntrance = (entrance: string) => entrance.replace(/:\d{1,5}$/, '').toLowerCase();

/**
 * The console's Diagnostics page: the doctor's checks (doctor/run-checks.ts, the same as `svc doctor`) run by
 * the application against the manual addresses, the console address the browser uses and the node records.
 * A run holds its probes for holdSeconds, so it runs in the background and is read back by id. Accounts that
 * are not role admin may not aim it at private addresses (docs/auth.md, server-side fetches): such a target
 * is skipped, and their connections are checked again on the address dialled.
 */
export class DiagnosticsRuns {
  constructor(private readonly options: DiagnosticsRunsOptions) {}

  async start(request: RunRequest): Promise<DiagnosticsRun> {
    const consoleUrl = this.consoleTarget(request);
    const run: DiagnosticsRun = {
      runId: randomUUID(),
      state: 'running',
      startedAt: new Date(this.options.clock.now()).toISOString(),
      finishedAt: null,
      checks: [],
    };
    await this.save(run);
    void this.execute(run, request, consoleUrl).catch((error: unknown) => {
      this.options.logger.error({ err: error, runId: run.runId }, 'diagnostics run failed');
    });
    return run;
  }

  async get(runId: string): Promise<DiagnosticsRun> {
    const stored = await this.options.cache.get(runKey(runId));
    if (stored === null) throw new AppError(404, 'NOT_FOUND', `no diagnostics run ${runId}`);
    return JSON.parse(stored) as DiagnosticsRun;
  }

  /** True once for a ticket this instance or another handed to a run's console probe. */
  async takeTicket(ticket: string): Promise<boolean> {
    const key = ticketKey(ticket);
    if ((await this.options.cache.get(key)) === null) return false;
    await this.options.cache.del(key);
    return true;
  }

  private consoleTarget(request: RunRequest): URL | null {
    if (request.consoleUrl === undefined) return null;
    const url = new URL(request.consoleUrl);
    if (request.entranceHost === undefined || hostnameOfEntrance(request.entranceHost) !== url.hostname) {
      const message = `consoleUrl must be on the host this request came through (${request.entranceHost ?? 'unknown'})`;
      throw new AppError(400, 'VALIDATION_FAILED', message, [{ path: '/consoleUrl', message }]);
    }
    return new URL(url.origin);
  }

  private async execute(run: DiagnosticsRun, request: RunRequest, consoleUrl: URL | null): Promise<void> {
    const admin = request.actor.role === 'admin';
    const dispatcher = probeDispatcher({ ...this.options.client, publicOnly: !admin });
    const reach: DoctorReach = {
      dispatcher,
      refusal: async (url) => {
        if (admin) return null;
        // The names the probes' client resolves itself (tests) are judged by the address they dial.
        const inside = await nonPublicAddressOf(url.hostname, async (name) => {
          const fixed = this.options.client?.resolve?.get(name.toLowerCase());
          return fixed === undefined ? systemResolver(name) : [fixed];
        });
        return inside
          ? `only an administrator may have the application probe ${url.hostname}: it is not a public address (${inside.range})`
          : null;
      },
    };
    const holdMs = request.holdSeconds * 1000;
    let checks: DiagnosticCheck[];
    try {
      const nodes = await this.options.nodes();
      const ticket = randomBytes(24).toString('base64url');
      if (consoleUrl) await this.options.cache.set(ticketKey(ticket), run.runId, holdMs + 120_000);
      checks = await runChecks({
        reach,
        holdMs,
        playback: nodes
          .filter((node) => node.serviceType === 'manual-play-agent-endpoint' && !node.disabled)
          .flatMap((node) =>
            node.externalAddress
              ? [{ url: new URL(node.externalAddress.url), expectedRoute: node.nodeId }]
              : [],
          ),
        console: consoleUrl && {
          probeUrl: (hold) => at(consoleUrl, `${STREAM_PROBE_PATH}/${ticket}`, hold),
          headers: {},
        },
        nodes: async () => nodes,
      });
      await this.options.cache.del(ticketKey(ticket));
    } catch (error) {
      checks = [problem('diagnostics', 'Diagnostics ran', (error as Error).message, 'run the checks again')];
    } finally {
      await dispatcher.close();
    }
    await this.save({
      ...run,
      state: 'done',
      finishedAt: new Date(this.options.clock.now()).toISOString(),
      checks,
    });
  }

  private save(run: DiagnosticsRun): Promise<void> {
    return this.options.cache.set(runKey(run.runId), JSON.stringify(run), RUN_TTL_MS);
  }
}
