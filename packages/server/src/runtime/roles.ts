import type { ComponentFactory } from './component.js';

/**
 * What each kind of process hosts, in start order (the registry first, the public entrance last).
 * Components load on demand, so a process pulls in only the code (and libraries) of its own role:
 * the supervisor and the play-agent never load the database engine.
 */
const ROLE_LOADERS = {
  /** The standalone edition's control process. */
  'standalone-control': async () => {
    const [config, user, media, gateway, frontend, internal] = await Promise.all([
      import('../services/config/config.component.js'),
      import('../services/user/user.component.js'),
      import('../services/media/media.component.js'),
      import('../services/gateway/gateway.component.js'),
      import('../services/frontend/frontend.component.js'),
      import('../services/internal/internal.component.js'),
    ]);
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
    const [config, internal] = await Promise.all([
      import('../services/config/config.component.js'),
      import('../services/internal/internal.component.js'),
    ]);
    return [config.createConfigComponent, internal.createInternalComponent];
  },
  user: async () => [(await import('../services/user/user.component.js')).createUserComponent],
  media: async () => [(await import('../services/media/media.component.js')).createMediaComponent],
  edge: async () => {
    const [gateway, frontend] = await Promise.all([
      import('../services/gateway/gateway.component.js'),
      import('../services/frontend/frontend.component.js'),
    ]);
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
