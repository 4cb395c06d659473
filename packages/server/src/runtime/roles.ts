import type { ComponentFactory } from './component.js';
import { createConfigComponent } from '../services/config/config.component.js';
import { createUserComponent } from '../services/user/user.component.js';
import { createMediaComponent } from '../services/media/media.component.js';
import { createGatewayComponent } from '../services/gateway/gateway.component.js';
import { createFrontendComponent } from '../services/frontend/frontend.component.js';
import { createInternalComponent } from '../services/internal/internal.component.js';
import { createStorageComponent } from '../services/storage/storage.component.js';
import { createPlayAgentComponent } from '../services/play-agent/play-agent.component.js';

/** What each kind of process hosts, in start order (the registry first, the public entrance last). */
export const PROCESS_ROLES = {
  /** The standalone edition's control process. */
  'standalone-control': [
    createConfigComponent,
    createUserComponent,
    createMediaComponent,
    createGatewayComponent,
    createFrontendComponent,
    createInternalComponent,
  ],
  control: [createConfigComponent, createInternalComponent],
  user: [createUserComponent],
  media: [createMediaComponent],
  edge: [createGatewayComponent, createFrontendComponent],
  storage: [createStorageComponent],
  'play-agent': [createPlayAgentComponent],
} as const satisfies Record<string, readonly ComponentFactory[]>;

export type ProcessRole = keyof typeof PROCESS_ROLES;
export const DISTRIBUTED_ROLES = ['control', 'user', 'media', 'edge'] as const;
export const NODE_ROLES = ['storage', 'play-agent'] as const;
