import type { MediaInfo, PlaybackFile } from '@svc/contracts';
import type { Logger } from '../../../platform/logger.js';
import { LoopbackTickets } from '../../../platform/loopback-tickets.js';
import { sendMedia } from '../stream/media-sender.js';
import type { MediaSource } from '../stream/sources.js';
import { ByteBudget, cappedSource } from './capped-source.js';
import { runBackgroundProbe } from './probe-runner.js';

/** A background probe may take this long (the file comes over the network, at most the cap). */
const PROBE_TIMEOUT_MS = 120_000;

interface Target {
  file: PlaybackFile;
  budget: ByteBudget;
}

/**
 * Runs ffprobe on a played file the way the subtitle extractor reads media: through a loopback ticket whose
 * every request opens the file's source anew (ffprobe seeks, e.g. to an index at the end) under one byte
 * budget for the whole probe. ffprobe runs at the lowest CPU priority (probe-runner.ts).
 */
export class MetadataProber {
  private readonly tickets: LoopbackTickets<Target>;

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
  }

  /** The file's technical metadata, reading at most `capBytes` of it; `bytesRead` is what it took. */
  async probe(file: PlaybackFile, capBytes: number): Promise<{ mediaInfo: MediaInfo; bytesRead: number }> {
    const budget = new ByteBudget(capBytes);
    const ticket = await this.tickets.open({ file, budget });
    try {
      const binary = this.deps.binary ?? 'ffprobe';
      const mediaInfo = await runBackgroundProbe(binary, ticket.url, file.size ?? 0, PROBE_TIMEOUT_MS);
      return { mediaInfo, bytesRead: budget.used };
    } finally {
      ticket.release();
    }
  }

  close(): Promise<void> {
    return this.tickets.close();
  }
}
