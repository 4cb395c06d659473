import type { ComponentFactory } from './component.js';

/**
 * What each kind of process hosts, in start order (the registry first, the public entrance last).
 * Components load on demand, so a process pulls in only the code (and libraries) of its own role:
 * the supervisor and the play-agent never load the database engine. A role's components load one after
 * another, never in parallel: an ES-module-only library that one component imports and another one's
 * CommonJS dependency require()s (content-disposition: our file delivery, @fastify/static) cannot be
 * required while a parallel import() is still loading it, and the process would stop at start.
 */
const ROLE_LOADERS = {
  /** The standalone edition's control process. */
  'standalone-control': async () => {
    const config = await import('../services/config/config.component.js');
    const user = await import('../services/user/user.component.js');
    const media = await import('../services/media/media.component.js');
    const gateway = await import('../services/gateway/gateway.component.js');
    const frontend = await import('../services/frontend/frontend.component.js');
    const internal = await import('../services/internal/internal.component.js');
    return [
      config.createConfigComponent,
      user.createUserComponent,
      media.createMediaComponent,
      gateway.createGatewayComponent,
      frontend.createFrontendComponent,
      internal.createInternalComponent,
    ];
  },
  control: async () => {
    const config = await import('../services/config/config.component.js');
    const cluster = await import('../services/config/cluster/cluster.component.js');
    const internal = await import('../services/internal/internal.component.js');
    return [config.createConfigComponent, cluster.createClusterComponent, internal.createInternalComponent];
  },
  user: async () => [(await import('../services/user/user.component.js')).createUserComponent],
  media: async () => [(await import('../services/media/media.component.js')).createMediaComponent],
  edge: async () => {
    const gateway = await import('../services/gateway/gateway.component.js');
    const frontend = await import('../services/frontend/frontend.component.js');
    return [gateway.createGatewayComponent, frontend.createFrontendComponent];
  },
  storage: async () => [(await import('../services/storage/storage.component.js')).createStorageComponent],
  'play-agent': async () => [
    (await import('../services/play-agent/play-agent.component.js')).createPlayAgentComponent,
  ],
} as const satisfies Record<string, () => Promise<readonly ComponentFactory[]>>;

export type ProcessRole = keyof typeof ROLE_LOADERS;
export const PROCESS_ROLE_NAMES = Object.keys(ROLE_LOADERS) as ProcessRole[];
export const DISTRIBUTED_ROLES = ['control', 'user', 'media', 'edge'] as const;
export const NODE_ROLES = ['storage', 'play-agent'] as const;

/** The component factories of a role, in start order. */
export function loadRole(role: ProcessRole): Promise<readonly ComponentFactory[]> {
  return ROLE_LOADERS[role]();
}
