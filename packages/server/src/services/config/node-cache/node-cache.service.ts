import {
  DEFAULT_NODE_CACHE_CONFIG,
  errorCodeSchema,
  mergeNodeCacheConfig,
  nodeCacheConfigSchema,
  type CacheConfigSyncResponse,
  type CacheDriveList,
  type NodeCacheConfig,
  type NodeCacheConfigPatch,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { AppError } from '../../../platform/http/errors.js';
import type { Logger } from '../../../platform/logger.js';
import type { NodesRepository } from '../nodes/nodes.repository.js';
import type { CacheDriveSource } from './cache-drives.client.js';
import type { NodeCacheClient } from './node-cache.client.js';
import type { NodeCacheConfigsRepository } from './node-cache.repository.js';

/**
 * The cache configuration of the play-agent nodes (docs/vfs-cache.md, "Endpoints"): kept here, pushed to
 * the node at each change (a node that does not take it gets it at its next pull), copied to other nodes,
 * and the console's entry routes forwarded live to the node.
 */
export class NodeCacheService {
  constructor(
    private readonly deps: {
      configs: NodeCacheConfigsRepository;
      nodes: Pick<NodesRepository, 'get'>;
      client: Pick<NodeCacheClient, 'push' | 'forward' | 'forwardCdn'>;
      drives: CacheDriveSource;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /** Refuses ids that are not a play-agent node record (a storage node or a manual address has no cache). */
  async requirePlayAgent(nodeId: string): Promise<void> {
    const node = await this.deps.nodes.get(nodeId);
    if (!node) throw new AppError(404, 'NOT_FOUND', `node ${nodeId} not found`);
    if (node.service_type !== 'svc-play-agent') {
      throw new AppError(409, 'NODE_NOT_PLAY_AGENT', `node ${nodeId} is not a play-agent node`, {
        serviceType: node.service_type,
      });
    }
  }

  /** The stored configuration; sections never saved (or no longer valid) take their defaults. */
  async get(nodeId: string): Promise<NodeCacheConfig> {
    await this.requirePlayAgent(nodeId);
    return this.stored(nodeId);
  }

  private async stored(nodeId: string): Promise<NodeCacheConfig> {
    const value = await this.deps.configs.find(nodeId);
    const saved = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
    const config = { ...DEFAULT_NODE_CACHE_CONFIG };
    for (const key of Object.keys(config) as (keyof NodeCacheConfig)[]) {
      const section = nodeCacheConfigSchema.shape[key].safeParse(saved[key]);
      if (section.success) (config as Record<string, unknown>)[key] = section.data;
    }
    return config;
  }

  /** The drives the node's multithread parameters may name (every storage node's non-local mounts). */
  async drives(nodeId: string): Promise<CacheDriveList> {
    await this.requirePlayAgent(nodeId);
    return this.deps.drives.list();
  }

  /** Applies a PATCH (merge rule of the contracts), saves it and pushes it to the node. */
  async update(nodeId: string, patch: NodeCacheConfigPatch): Promise<NodeCacheConfig> {
    const current = await this.get(nodeId);
    const merged = mergeNodeCacheConfig(current, patch);
    if (!merged.ok) {
      throw new AppError(
        400,
        'VALIDATION_FAILED',
        `cache configuration is not valid: ${merged.issues.map((issue) => issue.field).join(', ')}`,
        merged.issues.map((issue) => ({
          path: `/${issue.field.replaceAll('.', '/')}`,
          field: issue.field,
          message: issue.message,
        })),
      );
    }
    await this.save(nodeId, merged.config);
    return merged.config;
  }

  private async save(nodeId: string, config: NodeCacheConfig): Promise<{ applied: boolean; error?: string }> {
    await this.deps.configs.save(nodeId, config, new Date(this.deps.clock.now()));
    const pushed = await this.deps.client.push(nodeId, config);
    if (!pushed.applied) {
      this.deps.logger.info(
        { nodeId, err: pushed.error },
        'cache configuration saved; the node takes it at its next pull',
      );
    }
    return pushed;
  }

  /**
   * Copies the node's configuration to other play-agent nodes. Each target keeps its own directories
   * (paths belong to a machine); every other setting is copied. One target's failure does not stop the rest.
   */
  async sync(nodeId: string, targetNodeIds: readonly string[]): Promise<CacheConfigSyncResponse> {
    const source = await this.get(nodeId);
    const results: CacheConfigSyncResponse['results'] = [];
    for (const target of [...new Set(targetNodeIds)].filter((id) => id !== nodeId)) {
      try {
        const own = await this.get(target);
        const copy: NodeCacheConfig = {
          ...source,
          vfs: { ...source.vfs, directory: own.vfs.directory },
          image: { ...source.image, directory: own.image.directory },
        };
        const pushed = await this.save(target, copy);
        results.push({ nodeId: target, saved: true, ...pushed });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        results.push({ nodeId: target, saved: false, applied: false, error: message });
      }
    }
    return { results };
  }

  /** Forwards an entry route to the node; the node's refusals (an entry in use) come back as they are. */
  async forward(
    nodeId: string,
    method: 'GET' | 'POST',
    route: string,
    body?: unknown,
    section: 'cache' | 'cdn' = 'cache',
  ): Promise<unknown> {
    await this.requirePlayAgent(nodeId);
    const answer =
      section === 'cdn'
        ? await this.deps.client.forwardCdn(nodeId, method, route, body)
        : await this.deps.client.forward(nodeId, method, route, body);
    if (answer.status >= 200 && answer.status < 300) return answer.body;
    const error = (answer.body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
    const code = errorCodeSchema.safeParse(error?.code);
    if (code.success && answer.status >= 400 && answer.status < 500) {
      const message = typeof error?.message === 'string' ? error.message : code.data;
      throw new AppError(answer.status, code.data, message);
    }
    throw new AppError(502, 'UPSTREAM_FAILED', `node ${nodeId} answered HTTP ${answer.status}`);
  }
}
