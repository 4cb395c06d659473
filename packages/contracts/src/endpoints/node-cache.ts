import { declareEndpoints } from '../endpoint.js';
import {
  cacheDriveListSchema,
  cacheConfigSyncRequestSchema,
  cacheConfigSyncResponseSchema,
  cacheFlushResponseSchema,
  diskUsageResponseSchema,
  nodeCacheConfigPushSchema,
  vfsDeleteRequestSchema,
  vfsDeleteResponseSchema,
  vfsItemsQuerySchema,
  vfsItemsResponseSchema,
} from '../node-cache-api.js';
import { nodeCacheConfigPatchSchema, nodeCacheConfigSchema } from '../node-cache-config.js';
import { nodeParamsSchema } from '../nodes-api.js';

/** The console's cache page: menu permission `cache` (docs/auth.md). */
const CACHE_ADMIN = { gateway: { kind: 'admin', anyOf: ['cache'] } } as const;
const SERVICE = { service: true } as const;
const TAG = 'Node cache';
/** Forwarded live to the node: it may be down, or not a play-agent. */
const FORWARDED = ['NOT_FOUND', 'NODE_NOT_PLAY_AGENT', 'NODE_UNREACHABLE', 'UPSTREAM_FAILED'] as const;

/**
 * The cache of a play-agent node (docs/vfs-cache.md, "Endpoints"): its configuration, kept by the config
 * service and pushed to the node, and the entry routes the config service forwards to the node.
 */
export const nodeCacheEndpoints = declareEndpoints('config', {
  getNodeCacheConfig: {
    method: 'GET',
    path: '/api/config/nodes/{nodeId}/cache-config',
    summary: "A play-agent node's cache configuration (video, image, metadata probing)",
    tag: TAG,
    auth: CACHE_ADMIN,
    params: nodeParamsSchema,
    response: nodeCacheConfigSchema,
    errors: ['NOT_FOUND', 'NODE_NOT_PLAY_AGENT'],
  },
  updateNodeCacheConfig: {
    method: 'PATCH',
    path: '/api/config/nodes/{nodeId}/cache-config',
    summary: 'Change some cache settings of a play-agent node; the node applies them without a restart',
    tag: TAG,
    auth: CACHE_ADMIN,
    params: nodeParamsSchema,
    body: nodeCacheConfigPatchSchema,
    response: nodeCacheConfigSchema,
    errors: ['NOT_FOUND', 'NODE_NOT_PLAY_AGENT'],
  },
  listNodeCacheDrives: {
    method: 'GET',
    path: '/api/config/nodes/{nodeId}/cache-config/drives',
    summary: 'The drives (non-local mounts of the storage nodes) that multithread parameters may name',
    tag: TAG,
    auth: CACHE_ADMIN,
    params: nodeParamsSchema,
    response: cacheDriveListSchema,
    errors: ['NOT_FOUND', 'NODE_NOT_PLAY_AGENT'],
  },
  syncNodeCacheConfig: {
    method: 'POST',
    path: '/api/config/nodes/{nodeId}/cache-config/sync',
    summary: "Copy a play-agent node's cache configuration to other play-agent nodes",
    tag: TAG,
    auth: CACHE_ADMIN,
    params: nodeParamsSchema,
    body: cacheConfigSyncRequestSchema,
    response: cacheConfigSyncResponseSchema,
    errors: ['NOT_FOUND', 'NODE_NOT_PLAY_AGENT'],
  },
  getNodeCacheDiskUsage: {
    method: 'GET',
    path: '/api/config/nodes/{nodeId}/proxy/cache/disk-usage',
    summary: "Space used by a play-agent node's video cache and its entry counts",
    tag: TAG,
    auth: CACHE_ADMIN,
    params: nodeParamsSchema,
    response: diskUsageResponseSchema,
    errors: [...FORWARDED],
  },
  listNodeVfsItems: {
    method: 'GET',
    path: '/api/config/nodes/{nodeId}/proxy/cache/vfs-items',
    summary: "Entries of a play-agent node's video cache (paging, search, grouping by episodes, sorting)",
    tag: TAG,
    auth: CACHE_ADMIN,
    params: nodeParamsSchema,
    query: vfsItemsQuerySchema,
    response: vfsItemsResponseSchema,
    errors: [...FORWARDED],
  },
  deleteNodeVfsItems: {
    method: 'POST',
    path: '/api/config/nodes/{nodeId}/proxy/cache/vfs-delete',
    summary: 'Delete one video cache entry or all of them (a playing entry is refused)',
    tag: TAG,
    auth: CACHE_ADMIN,
    params: nodeParamsSchema,
    body: vfsDeleteRequestSchema,
    response: vfsDeleteResponseSchema,
    errors: [...FORWARDED, 'CACHE_ENTRY_IN_USE'],
  },
  flushNodeCache: {
    method: 'POST',
    path: '/api/config/nodes/{nodeId}/proxy/cache/flush',
    summary: 'Clear the video and image caches of a play-agent node (configuration kept)',
    tag: TAG,
    auth: CACHE_ADMIN,
    params: nodeParamsSchema,
    response: cacheFlushResponseSchema,
    errors: [...FORWARDED],
  },
  getInternalNodeCacheConfig: {
    method: 'GET',
    path: '/api/config/internal/nodes/{nodeId}/cache-config',
    summary: 'The cache configuration a play-agent node pulls at start and periodically',
    tag: 'Internal',
    auth: SERVICE,
    params: nodeParamsSchema,
    response: nodeCacheConfigPushSchema,
    errors: ['NOT_FOUND', 'NODE_NOT_PLAY_AGENT'],
  },
});

/** The node side: what the config service calls on a play-agent with the service token. */
export const playAgentCacheEndpoints = declareEndpoints('play-agent', {
  applyCacheConfig: {
    method: 'PUT',
    path: '/api/play-agent/internal/cache-config',
    summary: 'Take a new cache configuration now (pushed by the config service)',
    tag: 'Internal',
    auth: SERVICE,
    body: nodeCacheConfigPushSchema,
    status: 204,
    errors: [],
  },
  getCacheDiskUsage: {
    method: 'GET',
    path: '/api/play-agent/internal/cache/disk-usage',
    summary: "Space used by this node's video cache",
    tag: 'Internal',
    auth: SERVICE,
    response: diskUsageResponseSchema,
    errors: [],
  },
  listVfsItems: {
    method: 'GET',
    path: '/api/play-agent/internal/cache/vfs-items',
    summary: "Entries of this node's video cache",
    tag: 'Internal',
    auth: SERVICE,
    query: vfsItemsQuerySchema,
    response: vfsItemsResponseSchema,
    errors: [],
  },
  deleteVfsItems: {
    method: 'POST',
    path: '/api/play-agent/internal/cache/vfs-delete',
    summary: 'Delete one video cache entry or all of them',
    tag: 'Internal',
    auth: SERVICE,
    body: vfsDeleteRequestSchema,
    response: vfsDeleteResponseSchema,
    errors: ['CACHE_ENTRY_IN_USE', 'NOT_FOUND'],
  },
  flushCaches: {
    method: 'POST',
    path: '/api/play-agent/internal/cache/flush',
    summary: "Clear this node's video and image caches",
    tag: 'Internal',
    auth: SERVICE,
    response: cacheFlushResponseSchema,
    errors: [],
  },
});
