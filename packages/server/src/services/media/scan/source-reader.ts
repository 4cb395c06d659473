import type { MediaInfo, ProbeToolStatus } from '@svc/contracts';
import type { Logger } from '../../../platform/logger.js';
import type { SourceRow } from '../libraries/libraries.repository.js';
import { NFO_MAX_BYTES, parseNfo, type NfoData } from '../metadata/nfo.js';
import type { StorageGateway } from '../storage/storage-gateway.js';
import type { FileRef } from './library-layout.js';

/**
 * What one scan reads from the storage nodes besides the walk: .nfo files, and the probe of each video
 * while the node's probe tool is available. A file that cannot be read or probed is scanned without it.
 */
export class SourceReader {
  private readonly probeAvailable = new Map<string, boolean>();

  constructor(
    private readonly storage: StorageGateway,
    private readonly scan: { signal: AbortSignal; logger: Logger; checkAbort(): void },
  ) {}

  /** Asks each node once whether it can probe (an unreachable node cannot); the scan reports the answers. */
  async checkProbeTools(nodeIds: Iterable<string>): Promise<ProbeToolStatus[]> {
    const tools: ProbeToolStatus[] = [];
    for (const nodeId of nodeIds) {
      try {
        const tool = await this.storage.probeTool(nodeId, this.scan.signal);
        tools.push({ nodeId, reachable: true, available: tool.available, version: tool.version });
        this.probeAvailable.set(nodeId, tool.available);
      } catch {
        tools.push({ nodeId, reachable: false, available: false, version: null });
        this.probeAvailable.set(nodeId, false);
      }
    }
    return tools;
  }

  async readNfo(source: SourceRow, path: string, root: NfoData['root']): Promise<NfoData | null> {
    try {
      const text = await this.storage.readText(
        source.node_id,
        source.mount_id,
        path,
        NFO_MAX_BYTES,
        this.scan.signal,
      );
      const parsed = parseNfo(text, root);
      if (!parsed) this.scan.logger.debug({ path }, 'nfo file is not a Kodi document; ignored');
      return parsed;
    } catch (error) {
      this.scan.checkAbort();
      this.scan.logger.warn({ path, err: (error as Error).message }, 'cannot read nfo file');
      return null;
    }
  }

  async probe(source: SourceRow, file: FileRef): Promise<MediaInfo | null> {
    if (!this.probeAvailable.get(source.node_id)) return null;
    try {
      const answer = await this.storage.probe(source.node_id, source.mount_id, file.path, this.scan.signal);
      if (!answer.available) {
        this.probeAvailable.set(source.node_id, false);
        return null;
      }
      if (!answer.result) return null;
      return {
        container: answer.result.container,
        durationSeconds: answer.result.durationSeconds,
        bitrate: answer.result.bitrate ?? null,
        size: answer.result.size ?? file.size,
        streams: answer.result.streams,
        ...(answer.result.chapters?.length ? { chapters: answer.result.chapters } : {}),
      };
    } catch (error) {
      this.scan.checkAbort();
      this.scan.logger.warn({ path: file.path, err: (error as Error).message }, 'probe failed');
      return null;
    }
  }
}
