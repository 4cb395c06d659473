import { request, type Dispatcher } from 'undici';
import type { Clock } from '../../platform/cache/index.js';
import type { Logger } from '../../platform/logger.js';
import type { NodesRepository, ProbeResult } from './nodes.repository.js';
import { manualEndpointUrl } from './nodes.repository.js';

/** How often every manual address is probed (task `nodes.manual-health`). */
export const MANUAL_PROBE_INTERVAL_MS = 60_000;
/** The spec's node-selection health probe timeout: the whole request, from connect to the last body byte. */
export const MANUAL_PROBE_TIMEOUT_MS = 2_400;
/** Addresses probed at the same time. */
const PROBE_CONCURRENCY = 8;
/** At most this much of a /health answer is read. */
const MAX_BODY_BYTES = 64 * 1024;

export interface ManualAddressProberOptions {
  nodes: NodesRepository;
  clock: Clock;
  logger: Logger;
  /** The HTTP client the probe uses (tests pass an undici Agent trusting their own CA); undici's global one by default. */
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}

/** undici's own timeouts, which fire together with the probe's deadline. */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

function describeFailure(error: unknown, timeoutMs: number, timedOut: boolean): string {
  const err = error as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const code =
    typeof err.code === 'string' ? err.code : typeof err.cause?.code === 'string' ? err.cause.code : '';
  if (timedOut || TIMEOUT_CODES.has(code)) return `no answer within ${timeoutMs} ms`;
  const message =
    typeof err.cause?.message === 'string' && err.cause.message
      ? err.cause.message
      : typeof err.message === 'string'
        ? err.message
        : String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * The outbound health probe of manual reverse-proxy addresses (spec: the application must reach the
 * playback domain, it probes GET /health there): `GET https://<domain>[:port]/health`, online when it answers
 * 2xx within 2,400 ms; a refused connection, a certificate the dispatcher does not trust, a timeout or any
 * other status is offline. Each result is stored on the record with the time and a short reason.
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
      return { ok, detail: `HTTP ${response.statusCode}` };
    } catch (error) {
      return { ok: false, detail: describeFailure(error, this.timeoutMs, timeout.aborted) };
    }
  }

  /** Probes every manual address that is not disabled and stores the results. */
  async probeAll(signal?: AbortSignal): Promise<{ probed: number; online: number }> {
    const targets = await this.options.nodes.manualAddressesToProbe();
    let next = 0;
    let online = 0;
    const worker = async (): Promise<void> => {
      while (next < targets.length && !signal?.aborted) {
        const target = targets[next++]!;
        const result = await this.probe(target.host, target.port, signal);
        if (signal?.aborted) return;
        if (result.ok) online++;
        await this.options.nodes.recordProbe(target, result, new Date(this.options.clock.now()));
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
