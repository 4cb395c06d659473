import { request, type Dispatcher } from 'undici';
import type { Clock } from '../../../platform/cache/index.js';
import type { Logger } from '../../../platform/logger.js';
import { manualEndpointUrl, type ManualEndpointsRepository } from './manual-endpoints.repository.js';
import type { ProbeResult } from './node-rows.js';

/** How often every manual address is probed (task `nodes.manual-health`). */
export const MANUAL_PROBE_INTERVAL_MS = 60_000;
/** The spec's node-selection health probe timeout: the whole request, from connect to the last body byte. */
export const MANUAL_PROBE_TIMEOUT_MS = 2_400;
/** Addresses probed at the same time. */
const PROBE_CONCURRENCY = 8;
/** At most this much of a /health answer is read. */
const MAX_BODY_BYTES = 64 * 1024;

export interface ManualAddressProberOptions {
  manualEndpoints: ManualEndpointsRepository;
  clock: Clock;
  logger: Logger;
  /** The HTTP client the probe uses (tests pass an undici Agent trusting their own CA); undici's global one by default. */
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}

/**
 * What a probe result says, and all it says: accounts with the `node` permission read it, and the raw socket
 * error (refused, reset, timed out, certificate) would let them tell closed ports from silent ones behind the
 * address (port scanning). The server log keeps the cause at debug level.
 */
export const PROBE_DETAIL = {
  reachable: (status: number) => `reachable (HTTP ${status})`,
  wrongAnswer: (status: number) => `wrong answer (HTTP ${status})`,
  notReachable: 'not reachable',
} as const;

/**
 * The outbound health probe of manual reverse-proxy addresses (spec: the application must reach the
 * playback domain, it probes GET /health there): `GET https://<domain>[:port]/health`, online when it answers
 * 2xx within 2,400 ms; a refused connection, a certificate the dispatcher does not trust, a timeout or any
 * other status is offline. Each result is stored on the record with the time and a PROBE_DETAIL text.
 */
export class ManualAddressProber {
  private readonly timeoutMs: number;

  constructor(private readonly options: ManualAddressProberOptions) {
    this.timeoutMs = options.timeoutMs ?? MANUAL_PROBE_TIMEOUT_MS;
  }

  /** Probes one address (no storing). */
  async probe(host: string, port: number | null, signal?: AbortSignal): Promise<ProbeResult> {
    const url = `${manualEndpointUrl(host, port)}/health`;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([timeout, signal]) : timeout;
    try {
      const response = await request(url, {
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'svc-config-health-probe' },
        signal: combined,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        ...(this.options.dispatcher ? { dispatcher: this.options.dispatcher } : {}),
      });
      let read = 0;
      for await (const chunk of response.body) {
        read += (chunk as Buffer).length;
        if (read > MAX_BODY_BYTES) break;
      }
      if (read > MAX_BODY_BYTES) response.body.destroy();
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      const status = response.statusCode;
      return { ok, detail: ok ? PROBE_DETAIL.reachable(status) : PROBE_DETAIL.wrongAnswer(status) };
    } catch (error) {
      this.options.logger.debug({ url, err: error }, 'manual address health probe: no answer');
      return { ok: false, detail: PROBE_DETAIL.notReachable };
    }
  }

  /** Probes every manual address that is not disabled and stores the results. */
  async probeAll(signal?: AbortSignal): Promise<{ probed: number; online: number }> {
    const targets = await this.options.manualEndpoints.manualAddressesToProbe();
    let next = 0;
    let online = 0;
    const worker = async (): Promise<void> => {
      while (next < targets.length && !signal?.aborted) {
        const target = targets[next++]!;
        const result = await this.probe(target.host, target.port, signal);
        if (signal?.aborted) return;
        if (result.ok) online++;
        await this.options.manualEndpoints.recordProbe(target, result, new Date(this.options.clock.now()));
        if (!result.ok) {
          this.options.logger.debug(
            { nodeId: target.nodeId, detail: result.detail },
            'manual address health probe failed',
          );
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PROBE_CONCURRENCY, targets.length) }, worker));
    return { probed: targets.length, online };
  }
}
