import type { ProbeResponse } from '@svc/contracts';
import type { MountsService } from '../mounts.service.js';
import type { MountPath } from '../path-safety.js';
import type { ProbeSource } from './probe-source.js';
import type { ProbeTool } from './probe-tool.js';
import { storageErrors } from '../storage-errors.js';

/** Technical metadata of media files for the media service: ffprobe on the file itself or over loopback. */
export class ProbeService {
  constructor(
    private readonly tool: ProbeTool,
    private readonly source: ProbeSource,
    private readonly mounts: MountsService,
  ) {}

  toolStatus() {
    return this.tool.status();
  }

  async probe(mountId: string, path: MountPath): Promise<ProbeResponse> {
    const mount = await this.mounts.get(mountId);
    const entry = await mount.provider.stat(path);
    if (!entry) throw storageErrors.pathNotFound();
    if (entry.type === 'dir') throw storageErrors.isADirectory();
    if (!this.tool.status().available) return { available: false };
    const local = mount.provider.capabilities.localFiles ? await mount.provider.localPath(path) : null;
    if (local) return { available: true, result: await this.tool.probe(`file:${local}`, 'file', entry.size) };
    const { url, release } = await this.source.open(mount, path);
    try {
      return { available: true, result: await this.tool.probe(url, 'http,tcp', entry.size) };
    } finally {
      release();
    }
  }
}
