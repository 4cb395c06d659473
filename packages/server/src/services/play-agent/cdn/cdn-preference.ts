import {
  CDN_OPTIMIZE_INTERVAL_SECONDS,
  type CdnHostStatus,
  type CdnManualRequest,
  type CdnMeasurement,
  type CdnStatus,
} from '@svc/contracts';
import type { Agent, Dispatcher } from 'undici';
import { AppError } from '../../../platform/http/errors.js';
import type { Logger } from '../../../platform/logger.js';
import type { CdnManualStore } from './cdn-manual-store.js';
import { choosePrimary, preferredPool } from './cdn-ranking.js';
import type { DohResolver } from './doh-resolver.js';
import { measureIp, type SampleLink } from './ip-measure.js';
import { pinnedAgent, resolvingAgent, type CdnAgentOptions } from './pinned-agent.js';

/** Addresses measured per host and round at most (DNS answers beyond it wait for a later round). */
const MAX_CANDIDATES = 16;

/** A sample link, and how to ask for it again when the CDN refuses it. */
export interface LearnedLink extends SampleLink {
  refetch?: () => Promise<SampleLink>;
}

interface HostState {
  host: string;
  scheme: 'https' | 'http';
  primaryIp: string | null;
  /** The agent pinned to the primary; null = the resolving agent. */
  agent: Agent | null;
  pool: CdnMeasurement[];
  manualPreferred: string[];
  manualCandidates: string[];
  last: CdnMeasurement[];
  sample: LearnedLink | null;
  lastOptimizedAt: string | null;
  lastError: string | null;
  switches: number;
  /** The optimization running for this host: callers join it. */
  running: Promise<void> | null;
}

export interface CdnPreferenceOptions extends CdnAgentOptions {
  nodeId: string;
  resolver: DohResolver;
  logger: Logger;
  /** Bytes a measurement reads from the sample link (default 2 MiB). */
  sampleBytes?: number;
  /** Longest measurement of one address (default 8 s). */
  measureMaxMs?: number;
  now?: () => Date;
  /** Where the manual addresses are kept across restarts (none: they live in memory only). */
  manualStore?: CdnManualStore;
}

/**
 * The DRIVE_B CDN address preference of this play-agent (docs/drives.md): per CDN host, the primary
 * address new download connections go to, the pool of qualifying addresses and the manual lists. A switch
 * only changes where new requests go: a stream already reading keeps its connection to the old address
 * (the old agent is closed gracefully, after its requests end).
 */
export class CdnPreference {
  private readonly hosts = new Map<string, HostState>();
  private readonly fallback: Agent;
  private enabledFlag = true;
  private readonly now: () => Date;

  constructor(private readonly options: CdnPreferenceOptions) {
    this.fallback = resolvingAgent(options);
    this.now = options.now ?? (() => new Date());
  }

  get enabled(): boolean {
    return this.enabledFlag;
  }

  /** The node's cache configuration switch; when off, DRIVE_B reads go through the storage node. */
  setEnabled(enabled: boolean): void {
    this.enabledFlag = enabled;
  }

  /** The dispatcher a new request to `host` takes: pinned to the primary address, or resolving. */
  dispatcherFor(host: string): { dispatcher: Dispatcher; ip: string | null } {
    const state = this.hosts.get(host.toLowerCase());
    if (state?.agent && state.primaryIp) return { dispatcher: state.agent, ip: state.primaryIp };
    return { dispatcher: this.fallback, ip: null };
  }

  /**
   * A link of a host seen while streaming: the host is then optimized (now in the background when it is
   * new, then by the task), and the link is the sample its measurements read.
   */
  learn(link: LearnedLink): void {
    const url = new URL(link.url);
    const state = this.state(url.host, url.protocol === 'http:' ? 'http' : 'https');
    const isNew = state.sample === null && state.lastOptimizedAt === null;
    state.sample = link;
    if (isNew && this.enabledFlag) {
      this.optimizeHost(state).catch((error: unknown) =>
        this.options.logger.warn(
          { host: state.host, err: (error as Error).message },
          'CDN optimization failed',
        ),
      );
    }
  }

  /** A connection to the primary failed: the address leaves the pool and the next one takes over. */
  reportFailure(host: string, ip: string): void {
    const state = this.hosts.get(host.toLowerCase());
    if (!state) return;
    state.pool = state.pool.filter((measurement) => measurement.ip !== ip);
    if (state.primaryIp === ip) {
      this.options.logger.warn({ host: state.host, ip }, 'CDN address failed; it leaves the pool');
      this.switchTo(state, state.pool[0]?.ip ?? null);
    }
  }

  /** `gdrive-cdn.optimize`: every known host, one after another. */
  async optimizeAll(signal?: AbortSignal): Promise<void> {
    if (!this.enabledFlag) return;
    for (const state of [...this.hosts.values()]) {
      signal?.throwIfAborted();
      await this.optimizeHost(state, signal);
    }
  }

  /** The console's probe: one host (added when new) or all, now; answers the status after it. */
  async probe(host: string | undefined, signal?: AbortSignal): Promise<CdnStatus> {
    if (host) await this.optimizeHost(this.state(host), signal);
    else for (const state of [...this.hosts.values()]) await this.optimizeHost(state, signal);
    return this.status();
  }

  /** One address of one host, measured now (the pool is not changed). */
  async measure(ip: string, host: string | undefined, signal?: AbortSignal): Promise<CdnMeasurement> {
    const state = host ? this.state(host) : this.onlyHost();
    const source =
      state.manualPreferred.includes(ip) || state.manualCandidates.includes(ip) ? 'manual' : 'dns';
    return (await this.measureWithRefetch(state, [{ ip, source }], signal))[0]!;
  }

  /** Replaces a host's manual lists, keeps them (the store) and optimizes the host with them. */
  async setManual(request: CdnManualRequest, signal?: AbortSignal): Promise<CdnHostStatus> {
    const state = this.state(request.host);
    state.manualPreferred = [...request.preferredIps];
    state.manualCandidates = [...request.candidateIps];
    await this.options.manualStore?.save(
      [...this.hosts.values()].map((host) => ({
        host: host.host,
        scheme: host.scheme,
        preferredIps: host.manualPreferred,
        candidateIps: host.manualCandidates,
      })),
    );
    if (this.enabledFlag) await this.optimizeHost(state, signal);
    return this.hostStatus(state);
  }

  /**
   * At start: the manual addresses saved before the last stop. Their hosts are known again and a round
   * starts for each in the background, so a manual preferred address is the primary again soon after.
   */
  async restoreManual(): Promise<number> {
    const saved = (await this.options.manualStore?.load()) ?? [];
    for (const entry of saved) {
      const state = this.state(entry.host, entry.scheme);
      state.manualPreferred = [...entry.preferredIps];
      state.manualCandidates = [...entry.candidateIps];
      if (this.enabledFlag) {
        this.optimizeHost(state).catch((error: unknown) =>
          this.options.logger.warn(
            { host: state.host, err: (error as Error).message },
            'CDN optimization failed',
          ),
        );
      }
    }
    return saved.length;
  }

  status(): CdnStatus {
    return {
      nodeId: this.options.nodeId,
      enabled: this.enabledFlag,
      resolvers: [...this.options.resolver.resolvers],
      intervalSeconds: CDN_OPTIMIZE_INTERVAL_SECONDS,
      hosts: [...this.hosts.values()]
        .sort((a, b) => a.host.localeCompare(b.host))
        .map((state) => this.hostStatus(state)),
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled([
      this.fallback.close(),
      ...[...this.hosts.values()].map((state) => state.agent?.close()),
    ]);
  }

  private state(host: string, scheme?: 'https' | 'http'): HostState {
    const key = host.toLowerCase();
    let state = this.hosts.get(key);
    if (!state) {
      state = {
        host: key,
        scheme: scheme ?? 'https',
        primaryIp: null,
        agent: null,
        pool: [],
        manualPreferred: [],
        manualCandidates: [],
        last: [],
        sample: null,
        lastOptimizedAt: null,
        lastError: null,
        switches: 0,
        running: null,
      };
      this.hosts.set(key, state);
    } else if (scheme) {
      state.scheme = scheme;
    }
    return state;
  }

  private onlyHost(): HostState {
    const states = [...this.hosts.values()];
    if (states.length === 1) return states[0]!;
    throw new AppError(
      404,
      'NOT_FOUND',
      states.length === 0
        ? 'no DRIVE_B CDN host is known on this node yet: name the host'
        : 'this node knows several CDN hosts: name the host',
    );
  }

  private hostStatus(state: HostState): CdnHostStatus {
    return {
      host: state.host,
      primaryIp: state.primaryIp,
      preferredPool: state.pool,
      manualPreferredIps: state.manualPreferred,
      manualCandidateIps: state.manualCandidates,
      lastMeasurements: state.last,
      sampleKnown: state.sample !== null,
      lastOptimizedAt: state.lastOptimizedAt,
      lastError: state.lastError,
      switches: state.switches,
    };
  }

  private optimizeHost(state: HostState, signal?: AbortSignal): Promise<void> {
    state.running ??= this.runOptimization(state, signal).finally(() => {
      state.running = null;
    });
    return state.running;
  }

  /** Resolve (DoH), measure every candidate, rebuild the pool, switch the primary when another is better. */
  private async runOptimization(state: HostState, signal?: AbortSignal): Promise<void> {
    const hostname = state.host.replace(/:[0-9]+$/, '');
    let dns: string[] = [];
    state.lastError = null;
    try {
      dns = await this.options.resolver.resolve(hostname, signal);
    } catch (error) {
      signal?.throwIfAborted();
      state.lastError = (error as Error).message;
    }
    const candidates: { ip: string; source: CdnMeasurement['source'] }[] = [];
    const add = (ip: string, source: CdnMeasurement['source']) => {
      if (!candidates.some((candidate) => candidate.ip === ip)) candidates.push({ ip, source });
    };
    for (const ip of [...state.manualPreferred, ...state.manualCandidates]) add(ip, 'manual');
    for (const ip of dns) add(ip, 'dns');
    for (const measurement of state.pool) add(measurement.ip, 'pool');
    const measured = await this.measureWithRefetch(state, candidates.slice(0, MAX_CANDIDATES), signal);
    state.last = measured;
    state.pool = preferredPool(measured, state.manualPreferred);
    state.lastOptimizedAt = this.now().toISOString();
    if (candidates.length === 0) state.lastError ??= `no address of ${hostname} to measure`;
    else if (state.pool.length === 0) state.lastError ??= `no address of ${hostname} answered`;
    this.switchTo(state, choosePrimary(state.pool, state.primaryIp, state.manualPreferred));
  }

  /** Measures one after another (they would share the line otherwise); a refused sample is asked again once. */
  private async measureWithRefetch(
    state: HostState,
    candidates: { ip: string; source: CdnMeasurement['source'] }[],
    signal?: AbortSignal,
  ): Promise<CdnMeasurement[]> {
    const results: CdnMeasurement[] = [];
    let refetched = false;
    for (const candidate of candidates) {
      let result = await this.measureOne(state, candidate, signal);
      if (result.refused && !refetched && state.sample?.refetch) {
        refetched = true;
        try {
          const fresh = await state.sample.refetch();
          state.sample = { ...fresh, refetch: state.sample.refetch };
          result = await this.measureOne(state, candidate, signal);
        } catch (error) {
          this.options.logger.warn(
            { host: state.host, err: (error as Error).message },
            'CDN sample link not renewed',
          );
        }
      }
      results.push(result.measurement);
    }
    return results;
  }

  private measureOne(
    state: HostState,
    candidate: { ip: string; source: CdnMeasurement['source'] },
    signal?: AbortSignal,
  ) {
    return measureIp({
      ...candidate,
      host: state.host,
      scheme: state.scheme,
      sample: state.sample,
      ...(this.options.ca ? { ca: this.options.ca } : {}),
      ...(this.options.sampleBytes ? { sampleBytes: this.options.sampleBytes } : {}),
      ...(this.options.measureMaxMs ? { maxMs: this.options.measureMaxMs } : {}),
      ...(signal ? { signal } : {}),
      now: this.now,
    });
  }

  /** New requests go to `ip` from now on; the previous agent ends after the requests it carries. */
  private switchTo(state: HostState, ip: string | null): void {
    if (ip === state.primaryIp) return;
    const previous = state.agent;
    const from = state.primaryIp;
    state.agent = ip ? pinnedAgent(ip, this.options) : null;
    state.primaryIp = ip;
    state.switches += 1;
    this.options.logger.info({ host: state.host, from, to: ip }, 'CDN primary address switched');
    // close() lets running requests (streams) finish on their connections and refuses new ones.
    previous?.close().catch(() => undefined);
  }
}
