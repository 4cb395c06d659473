import { request } from 'undici';
import { z } from 'zod';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';
import { AppError } from '../../../platform/http/errors.js';

export type DirectoryServiceType = 'svc-control-storage' | 'svc-play-agent' | 'manual-play-agent-endpoint';

/** Which node records exist (asked of the config service, which owns them). */
export interface NodeDirectory {
  /** The records among `ids` that exist; unknown ids are simply absent from the answer. */
  find(ids: string[]): Promise<{ nodeId: string; serviceType: DirectoryServiceType }[]>;
}

const nodesResponseSchema = z.object({
  nodes: z.array(
    z.object({
      nodeId: z.string(),
      serviceType: z.enum(['svc-control-storage', 'svc-play-agent', 'manual-play-agent-endpoint']),
      name: z.string().optional(),
    }),
  ),
});

/** Ids per request, to keep the query string short. */
const BATCH = 50;
const TIMEOUT_MS = 5_000;

/** GET {configBaseUrl}/api/config/internal/nodes?ids=a,b with the service token. */
export class HttpNodeDirectory implements NodeDirectory {
  constructor(
    private readonly configBaseUrl: string,
    private readonly serviceToken: string,
  ) {}

  async find(ids: string[]): Promise<{ nodeId: string; serviceType: DirectoryServiceType }[]> {
    const unique = [...new Set(ids)];
    const found: { nodeId: string; serviceType: DirectoryServiceType }[] = [];
    for (let start = 0; start < unique.length; start += BATCH) {
      const batch = unique.slice(start, start + BATCH);
      const query = new URLSearchParams({ ids: batch.join(',') });
      const base = this.configBaseUrl.replace(/\/+$/, '');
      let body: unknown;
      try {
        const response = await request(`${base}/api/config/internal/nodes?${query.toString()}`, {
          headers: { [SERVICE_TOKEN_HEADER]: this.serviceToken, accept: 'application/json' },
          headersTimeout: TIMEOUT_MS,
          bodyTimeout: TIMEOUT_MS,
        });
        if (response.statusCode !== 200) {
          await response.body.dump();
          throw new Error(`status ${response.statusCode}`);
        }
        body = await response.body.json();
      } catch (error) {
        throw new AppError(
          503,
          'UPSTREAM_UNAVAILABLE',
          `the config service could not list nodes: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      const parsed = nodesResponseSchema.safeParse(body);
      if (!parsed.success) {
        throw new AppError(
          503,
          'UPSTREAM_UNAVAILABLE',
          'the config service answered the node list unexpectedly',
        );
      }
      found.push(...parsed.data.nodes.map(({ nodeId, serviceType }) => ({ nodeId, serviceType })));
    }
    return found;
  }
}
