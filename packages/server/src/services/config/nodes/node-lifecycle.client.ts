import type { NodeLifecycleAction } from '@svc/contracts';
import { request } from 'undici';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';

/** What became of a lifecycle call to a node. */
export type LifecycleSendResult =
  | { sent: true; baseUrl: string }
  | { sent: false; reason: 'no-address' }
  | { sent: false; reason: 'refused' | 'failed'; baseUrl: string; detail: string };

/** Sends POST /api/node/lifecycle to a worker node (node side: services/shared/node-lifecycle.routes.ts). */
export interface NodeLifecycleSender {
  send(nodeId: string, action: NodeLifecycleAction): Promise<LifecycleSendResult>;
}

/** Calls the node at its registered address with the service token; 5 s at most. */
export class HttpNodeLifecycleSender implements NodeLifecycleSender {
  constructor(
    private readonly address: (nodeId: string) => Promise<string | undefined>,
    private readonly serviceToken: string,
    private readonly timeoutMs = 5_000,
  ) {}

  async send(nodeId: string, action: NodeLifecycleAction): Promise<LifecycleSendResult> {
    const baseUrl = await this.address(nodeId);
    if (!baseUrl) return { sent: false, reason: 'no-address' };
    try {
      const response = await request(`${baseUrl.replace(/\/+$/, '')}/api/node/lifecycle`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [SERVICE_TOKEN_HEADER]: this.serviceToken },
        body: JSON.stringify({ action }),
        signal: AbortSignal.timeout(this.timeoutMs),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const text = await response.body.text();
      if (response.statusCode === 202) return { sent: true, baseUrl };
      let detail = `HTTP ${response.statusCode}`;
      try {
        const parsed = JSON.parse(text) as { error?: { code?: string; message?: string } };
        if (parsed.error?.code) detail += ` ${parsed.error.code}: ${parsed.error.message ?? ''}`.trimEnd();
      } catch {
        // not JSON: the status says enough
      }
      return { sent: false, reason: 'refused', baseUrl, detail };
    } catch (error) {
      return {
        sent: false,
        reason: 'failed',
        baseUrl,
        detail: error instanceof Error ? error.message : String(error),
      };
    }
  }
}
