import type { NodeCacheConfig } from '@svc/contracts';
import { request } from 'undici';
import { AppError } from '../../../platform/http/errors.js';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';

/** A CDN probe measures up to 16 addresses of up to 8 s each, one after another. */
const CDN_TIMEOUT_MS = 180_000;

/** A node's answer, relayed as it came (status and JSON body). */
export interface NodeAnswer {
  status: number;
  body: unknown;
}

/**
 * Calls a play-agent node's cache routes (services/play-agent/cache-runtime/node-cache.routes.ts) at its
 * registered address with the service token. A node without an address or that does not answer is
 * NODE_UNREACHABLE (503).
 */
export class NodeCacheClient {
  constructor(
    private readonly address: (nodeId: string) => Promise<string | undefined>,
    private readonly serviceToken: string,
    private readonly timeoutMs = 10_000,
  ) {}

  /** Sends a configuration; answers whether the node took it (false: it gets it at its next pull). */
  async push(nodeId: string, config: NodeCacheConfig): Promise<{ applied: boolean; error?: string }> {
    try {
      const answer = await this.call(nodeId, 'PUT', '/api/play-agent/internal/cache-config', { config });
      if (answer.status === 204) return { applied: true };
      return { applied: false, error: `the node answered HTTP ${answer.status}` };
    } catch (error) {
      return { applied: false, error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** One of the node's cache routes (below /api/play-agent/internal/cache/). */
  async forward(nodeId: string, method: 'GET' | 'POST', route: string, body?: unknown): Promise<NodeAnswer> {
    return this.call(nodeId, method, `/api/play-agent/internal/cache/${route}`, body);
  }

  /**
   * One of the node's CDN routes (below /api/play-agent/internal/cdn/). A probe measures several addresses
   * one after another, so these calls wait longer.
   */
  async forwardCdn(
    nodeId: string,
    method: 'GET' | 'POST',
    route: string,
    body?: unknown,
  ): Promise<NodeAnswer> {
    return this.call(nodeId, method, `/api/play-agent/internal/cdn/${route}`, body, CDN_TIMEOUT_MS);
  }

  private async call(
    nodeId: string,
    method: string,
    route: string,
    body?: unknown,
    timeoutMs = this.timeoutMs,
  ): Promise<NodeAnswer> {
    const baseUrl = await this.address(nodeId);
    if (!baseUrl) throw new AppError(503, 'NODE_UNREACHABLE', `node ${nodeId} has no registered address`);
    try {
      const response = await request(`${baseUrl.replace(/\/+$/, '')}${route}`, {
        method: method as 'GET',
        headers: {
          [SERVICE_TOKEN_HEADER]: this.serviceToken,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const text = await response.body.text();
      let parsed: unknown = undefined;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: response.statusCode, body: parsed };
    } catch (error) {
      throw new AppError(
        503,
        'NODE_UNREACHABLE',
        `node ${nodeId} did not answer: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
