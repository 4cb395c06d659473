import { request } from 'undici';
import {
  internalMountListSchema,
  type CacheDriveList,
  type RegisteredService,
  type ServiceInstance,
} from '@svc/contracts';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';

const TIMEOUT_MS = 5_000;

/** Where the drives that multithread parameters may name come from. */
export interface CacheDriveSource {
  list(): Promise<CacheDriveList>;
}

/**
 * Asks every live storage node for its mounts (service token) and keeps those that are not local folders:
 * the drives whose files a play-agent fills with ranged reads. A node that does not answer is named, so the
 * console can say that its drives are missing from the list rather than that it has none.
 */
export class HttpCacheDriveSource implements CacheDriveSource {
  constructor(
    private readonly liveInstances: (filter: { service: RegisteredService }) => Promise<ServiceInstance[]>,
    private readonly serviceToken: string,
  ) {}

  async list(): Promise<CacheDriveList> {
    const nodes = await this.liveInstances({ service: 'svc-control-storage' });
    const drives: CacheDriveList['drives'] = [];
    const unreachable: string[] = [];
    const seen = new Set<string>();
    await Promise.all(
      nodes.map(async (node) => {
        const storageNodeId = node.nodeId ?? node.instanceId;
        const mounts = await this.mountsOf(node.baseUrl);
        if (!mounts) {
          unreachable.push(storageNodeId);
          return;
        }
        for (const mount of mounts) {
          if (mount.provider === 'local' || seen.has(mount.id)) continue;
          seen.add(mount.id);
          drives.push({ driveId: mount.id, name: mount.name, provider: mount.provider, storageNodeId });
        }
      }),
    );
    drives.sort((a, b) => a.name.localeCompare(b.name) || a.driveId.localeCompare(b.driveId));
    return { drives, unreachableStorageNodes: [...new Set(unreachable)].sort() };
  }

  private async mountsOf(baseUrl: string) {
    try {
      const response = await request(`${baseUrl.replace(/\/+$/, '')}/api/storage/internal/mounts`, {
        headers: { [SERVICE_TOKEN_HEADER]: this.serviceToken, accept: 'application/json' },
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      if (response.statusCode !== 200) {
        await response.body.dump();
        return null;
      }
      const parsed = internalMountListSchema.safeParse(await response.body.json());
      return parsed.success ? parsed.data.mounts : null;
    } catch {
      return null;
    }
  }
}
