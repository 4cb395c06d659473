import type { MediaInfo, PlaybackFile } from '@svc/contracts';
import type { Logger } from '../../../platform/logger.js';
import { LoopbackTickets } from '../../../platform/loopback-tickets.js';
import { ProbeTool } from '../../storage/probe/probe-tool.js';
import { sendMedia } from '../stream/media-sender.js';
import type { MediaSource } from '../stream/sources.js';
import { ByteBudget, cappedSource } from './capped-source.js';

/** A background probe may take this long (the file comes over the network, at most the cap). */
const PROBE_TIMEOUT_MS = 120_000;

interface Target {
  file: PlaybackFile;
  budget: ByteBudget;
}

/**
 * Runs ffprobe on a played file the way the subtitle extractor reads media: through a loopback ticket whose
 * every request opens the file's source anew (ffprobe seeks, e.g. to an index at the end) under one byte
 * budget for the whole probe.
 */
export class MetadataProber {
  private readonly tickets: LoopbackTickets<Target>;
  private readonly tool: ProbeTool;

  constructor(
    private readonly deps: {
      open: (file: PlaybackFile) => Promise<MediaSource>;
      logger: Logger;
      binary?: string;
    },
  ) {
    this.tickets = new LoopbackTickets(deps.logger, async (request, response, target) =>
      sendMedia(request, response, cappedSource(await deps.open(target.file), target.budget)),
    );
    this.tool = new ProbeTool(deps.logger, {
      timeoutMs: PROBE_TIMEOUT_MS,
      concurrency: 2,
      ...(deps.binary ? { binary: deps.binary } : {}),
    });
  }

  /** The file's technical metadata, reading at most `capBytes` of it; `bytesRead` is what it took. */
  async probe(file: PlaybackFile, capBytes: number): Promise<{ mediaInfo: MediaInfo; bytesRead: number }> {
    const budget = new ByteBudget(capBytes);
    const ticket = await this.tickets.open({ file, budget });
    try {
      const result = await this.tool.probe(ticket.url, 'http,tcp', file.size ?? 0);
      return { mediaInfo: result, bytesRead: budget.used };
    } finally {
      ticket.release();
    }
  }

  close(): Promise<void> {
    return this.tickets.close();
  }
}
