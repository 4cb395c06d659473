import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { cdnManualRequestSchema } from '@svc/contracts';

/** The manual addresses of one CDN host, as kept across restarts. */
export interface ManualHost {
  host: string;
  scheme: 'https' | 'http';
  preferredIps: string[];
  candidateIps: string[];
}

const fileSchema = z.object({
  hosts: z.array(cdnManualRequestSchema.extend({ scheme: z.enum(['https', 'http']) })),
});

/**
 * The manual CDN addresses of this play-agent (docs/drives.md, "CDN address preference"), in a file of the
 * node's work folder. They are this node's view of its own network path, so they stay with the node rather
 * than in the config service. Written atomically (temporary file, then rename) and one write after another;
 * a damaged file is set aside and the node starts from DNS, as a node without the file does.
 */
export class CdnManualStore {
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly file: string) {}

  static forNode(baseDirectory: string, nodeId: string): CdnManualStore {
    return new CdnManualStore(path.join(baseDirectory, 'play-agent', `cdn-manual-${nodeId}.json`));
  }

  get path(): string {
    return this.file;
  }

  /** The saved hosts; none when there is no file. A damaged file is renamed aside and reported. */
  async load(): Promise<ManualHost[]> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    try {
      return fileSchema.parse(JSON.parse(text)).hosts;
    } catch (error) {
      await rename(this.file, `${this.file}.damaged-${Date.now()}`);
      throw new Error(`unreadable CDN manual-address file set aside: ${(error as Error).message}`);
    }
  }

  /** Replaces the file with these hosts (hosts without manual addresses are left out). */
  save(hosts: readonly ManualHost[]): Promise<void> {
    const kept = hosts.filter((host) => host.preferredIps.length > 0 || host.candidateIps.length > 0);
    const write = async () => {
      await mkdir(path.dirname(this.file), { recursive: true });
      const temporary = `${this.file}.${randomUUID()}.tmp`;
      await writeFile(temporary, JSON.stringify({ hosts: kept }), { mode: 0o600 });
      await rename(temporary, this.file);
    };
    const next = this.writing.then(write, write);
    this.writing = next.catch(() => undefined);
    return next;
  }
}
