import type { CdnMeasurement } from '@svc/contracts';
import { request, type Dispatcher } from 'undici';
import { pinnedAgent, type CdnAgentOptions } from './pinned-agent.js';

/** A file link of the CDN host whose first bytes a measurement reads. */
export interface SampleLink {
  url: string;
  headers: Record<string, string>;
}

export interface MeasureOptions extends CdnAgentOptions {
  ip: string;
  /** host[:port] of the CDN. */
  host: string;
  scheme: 'https' | 'http';
  source: CdnMeasurement['source'];
  /** Without a sample only the latency of any answer of the host is measured. */
  sample: SampleLink | null;
  /** Bytes read from the sample (default 2 MiB). */
  sampleBytes?: number;
  /** Longest time of one measurement (default 8 s); the throughput is what came until then. */
  maxMs?: number;
  signal?: AbortSignal;
  now?: () => Date;
}

/** A measurement, and whether the CDN refused the sample link (401/403: the link must be asked again). */
export interface MeasureResult {
  measurement: CdnMeasurement;
  refused: boolean;
}

const DEFAULT_SAMPLE_BYTES = 2 * 1024 * 1024;
const DEFAULT_MAX_MS = 8_000;

/**
 * Measures one address of the CDN through its own connection: the time to the answer's headers (TCP, TLS
 * and the CDN's own delay) and the bytes per second of a live read of the sample link's first bytes.
 */
export async function measureIp(options: MeasureOptions): Promise<MeasureResult> {
  const now = options.now ?? (() => new Date());
  const sampleBytes = options.sampleBytes ?? DEFAULT_SAMPLE_BYTES;
  const maxMs = options.maxMs ?? DEFAULT_MAX_MS;
  const agent = pinnedAgent(options.ip, options);
  const deadline = AbortSignal.timeout(maxMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const base = { ip: options.ip, source: options.source };
  const failed = (error: string, latencyMs: number | null = null, refused = false): MeasureResult => ({
    measurement: {
      ...base,
      ok: false,
      latencyMs,
      throughputBytesPerSecond: null,
      bytes: 0,
      error,
      measuredAt: now().toISOString(),
    },
    refused,
  });
  const started = performance.now();
  let response: Dispatcher.ResponseData;
  try {
    response = await request(options.sample?.url ?? `${options.scheme}://${options.host}/`, {
      method: 'GET',
      dispatcher: agent,
      headers: options.sample
        ? { ...options.sample.headers, range: `bytes=0-${sampleBytes - 1}` }
        : { 'user-agent': 'svc-play-agent cdn-probe' },
      signal,
      headersTimeout: maxMs,
      bodyTimeout: maxMs,
    });
  } catch (error) {
    await agent.destroy().catch(() => undefined);
    if (options.signal?.aborted) throw options.signal.reason;
    return failed(deadline.aborted ? 'no answer in time' : oneLine(error));
  }
  const latencyMs = Math.round(performance.now() - started);
  try {
    if (!options.sample) {
      await response.body.dump().catch(() => undefined);
      return {
        measurement: {
          ...base,
          ok: true,
          latencyMs,
          throughputBytesPerSecond: null,
          bytes: 0,
          error: null,
          measuredAt: now().toISOString(),
        },
        refused: false,
      };
    }
    if (response.statusCode !== 200 && response.statusCode !== 206) {
      await response.body.dump().catch(() => undefined);
      const refused = response.statusCode === 401 || response.statusCode === 403;
      return failed(`answered HTTP ${response.statusCode}`, latencyMs, refused);
    }
    const bodyStarted = performance.now();
    let bytes = 0;
    try {
      for await (const chunk of response.body) {
        bytes += (chunk as Buffer).length;
        if (bytes >= sampleBytes) break;
      }
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      // The time limit ends a slow read: what came until then is the throughput.
      if (!deadline.aborted) return failed(`the read broke off: ${oneLine(error)}`, latencyMs);
    }
    const seconds = Math.max((performance.now() - bodyStarted) / 1000, 0.001);
    if (bytes === 0) return failed('sent no bytes', latencyMs);
    return {
      measurement: {
        ...base,
        ok: true,
        latencyMs,
        throughputBytesPerSecond: Math.round(bytes / seconds),
        bytes,
        error: null,
        measuredAt: now().toISOString(),
      },
      refused: false,
    };
  } finally {
    response.body.on('error', () => undefined).destroy();
    await agent.destroy().catch(() => undefined);
  }
}

function oneLine(error: unknown): string {
  const message =
    error instanceof Error
      ? error.cause instanceof Error
        ? error.cause.message
        : error.message
      : String(error);
  return message.split('\n')[0]!.slice(0, 200);
}
