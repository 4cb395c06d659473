import type { Identity, PlaybackRoute, PlaybackRoutesResponse } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { addressUrl, directoryFacts, externalAddressOf, type NodeViews } from '../nodes/node-views.js';
import type { NodesRepository } from '../nodes/nodes.repository.js';
import { nodeStatusOf } from '../nodes/nodes.service.js';
import type { PlaybackPolicySource } from './playback-policy.client.js';

export interface PlaybackRoutesOptions {
  nodes: NodesRepository;
  clock: Clock;
  views: NodeViews;
  playbackPolicies: PlaybackPolicySource;
}

/** The playback addresses of an account (GET /api/config/me/playback-routes). See docs/nodes.md. */
export class PlaybackRoutesService {
  constructor(private readonly options: PlaybackRoutesOptions) {}

  /**
   * The addresses an account enters into an Emby-compatible client: each play-agent node (its external
   * address, else its direct address) and each manual address, as far as the account's node access allows;
   * disabled records never. `entranceHost` is the host[:port] the account reached the console with.
   */
  async playbackRoutes(identity: Identity, entranceHost?: string): Promise<PlaybackRoutesResponse> {
    const policy = await this.options.playbackPolicies.policy(identity.userId);
    if (policy.disabled || policy.nodeAccess.mode === 'NONE') return { routes: [] };
    const allowed = (kind: 'node' | 'endpoint', id: string) =>
      policy.nodeAccess.mode === 'ALL' ||
      policy.nodeAccess.entries.some((entry) => entry.kind === kind && entry.id === id);
    const now = this.options.clock.now();
    const routes: PlaybackRoute[] = [];
    const [rows, ports] = await Promise.all([
      this.options.nodes.list(),
      this.options.views.registeredPorts(),
    ]);
    for (const row of rows) {
      if (row.disabled || row.service_type === 'svc-control-storage') continue;
      const status = nodeStatusOf(directoryFacts(row), now);
      const health = status === 'ONLINE' ? 'online' : status === 'offline' ? 'offline' : 'pending';
      if (row.service_type === 'manual-play-agent-endpoint') {
        if (!allowed('endpoint', row.node_id)) continue;
        routes.push({
          kind: 'endpoint',
          id: row.node_id,
          name: row.name,
          url: addressUrl('https', row.external_host ?? '', row.external_port),
          source: 'manual-address',
          health,
        });
        continue;
      }
      if (!allowed('node', row.node_id)) continue;
      const external = externalAddressOf(row);
      routes.push({
        kind: 'node',
        id: row.node_id,
        name: row.name,
        url: external ? external.url : this.options.views.directAddress(row, ports, entranceHost),
        source: external ? 'external-address' : 'direct-address',
        health,
      });
    }
    return { routes };
  }
}
