import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { activityEventSchema, type ActivityEvent } from '@svc/contracts';
import type { ServedRoute } from './usage-meter.js';

/** Traffic of one user and route not yet recorded by the user service. */
export interface PendingUsage {
  route: ServedRoute;
  bytes: number;
}

/** What a stopping play-agent could not deliver: sent again at its next start. */
export interface SpooledReports {
  events: ActivityEvent[];
  usage: PendingUsage[];
}

const spoolSchema = z.object({
  events: z.array(activityEventSchema),
  usage: z.array(
    z.object({
      route: z.object({ userId: z.string().min(1), endpointId: z.string().min(1).nullable() }),
      bytes: z.number().int().positive(),
    }),
  ),
});

/**
 * A file in the node's work folder holding the playback events and traffic counts a stop could not send
 * (the user service was stopping too, or unreachable). Written atomically (temporary file, then rename),
 * so a crash mid-write leaves the previous content or none. Events carry ids, so sending one twice is
 * harmless; traffic counts are only written here after their sending failed.
 */
export class ReportSpool {
  constructor(private readonly file: string) {}

  static forNode(baseDirectory: string, nodeId: string): ReportSpool {
    return new ReportSpool(path.join(baseDirectory, 'play-agent', `pending-reports-${nodeId}.json`));
  }

  get path(): string {
    return this.file;
  }

  async save(reports: SpooledReports): Promise<void> {
    if (reports.events.length === 0 && reports.usage.length === 0) return;
    await mkdir(path.dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${randomUUID()}.tmp`;
    await writeFile(temporary, JSON.stringify(reports), { mode: 0o600 });
    await rename(temporary, this.file);
  }

  /**
   * The saved reports, removing the file (the caller queues them again; a new stop saves what is still
   * unsent). A damaged file is renamed aside, never silently dropped, and reported by the error.
   */
  async take(): Promise<SpooledReports | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    let parsed: SpooledReports;
    try {
      parsed = spoolSchema.parse(JSON.parse(text));
    } catch (error) {
      await rename(this.file, `${this.file}.damaged-${Date.now()}`);
      throw new Error(`unreadable pending-reports file set aside: ${(error as Error).message}`);
    }
    await rm(this.file, { force: true });
    return parsed;
  }
}
