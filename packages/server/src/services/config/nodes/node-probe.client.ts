import { request } from 'undici';
import { startupProbeStatusSchema, type StartupProbeStatus } from '@svc/contracts';
import { AppError } from '../../../platform/http/errors.js';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';

/** A recheck runs ffprobe twice on the node; allow for a loaded machine. */
const TIMEOUT_MS = 30_000;

/**
 * Forwards the console's startup-probe calls to a play-agent node at its registered address with the
 * service token (node side: play-agent/metadata-probe/startup-probe.routes.ts).
 */
export class NodeProbeClient {
  constructor(
    private readonly address: (nodeId: string) => Promise<string | undefined>,
    private readonly serviceToken: string,
  ) {}

  status(nodeId: string): Promise<StartupProbeStatus> {
    return this.call(nodeId, 'GET', '/api/node/cache/startup-probe');
  }

  recheck(nodeId: string): Promise<StartupProbeStatus> {
    return this.call(nodeId, 'POST', '/api/node/cache/startup-probe/recheck');
  }

  private async call(nodeId: string, method: 'GET' | 'POST', path: string): Promise<StartupProbeStatus> {
    const baseUrl = await this.address(nodeId);
    if (!baseUrl) throw unreachable(nodeId, 'it has no registered address');
    let status: number;
    let text: string;
    try {
      const response = await request(`${baseUrl.replace(/\/+$/, '')}${path}`, {
        method,
        headers: { [SERVICE_TOKEN_HEADER]: this.serviceToken },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      throw unreachable(nodeId, (error as Error).message);
    }
    const parsed = status === 200 ? startupProbeStatusSchema.safeParse(safeJson(text)) : null;
    if (!parsed?.success) throw unreachable(nodeId, `it answered ${status}`);
    return parsed.data;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const unreachable = (nodeId: string, why: string) =>
  new AppError(503, 'UPSTREAM_UNAVAILABLE', `play-agent node ${nodeId} did not answer: ${why}`, {
    nodeId,
  });
