import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { parseContentRange, rangeHeader } from '../../../platform/http/file-delivery/range.js';
import { forbidden } from '../../../platform/http/errors.js';
import type { MountPath } from '../path-safety.js';
import type {
  ByteRange,
  DirectLink,
  ProviderCapabilities,
  ProviderEntry,
  ProviderUsage,
  StorageProvider,
} from '../providers/provider.js';
import { storageErrors } from '../storage-errors.js';
import type { DriveLink, DriveProvider } from './drive-provider.js';

const readOnly = () => forbidden('drive mounts are read-only on this node');
/** Time to the CDN's answer headers and longest silence of its body. */
const HEADERS_TIMEOUT_MS = 30_000;
const BODY_TIMEOUT_MS = 300_000;

/**
 * A drive as a storage provider: browse, walk (library scans), stat and ranged reads go through the
 * drive's API and links; writing is not offered (the node reads drives, it does not manage them).
 */
export class DriveStorageProvider implements StorageProvider {
  readonly capabilities: ProviderCapabilities;

  constructor(readonly drive: DriveProvider) {
    this.capabilities = {
      rangeReads: true,
      serverSideCopy: false,
      serverSideMove: false,
      directLinks: true,
      cdnHosts: drive.cdnHosts,
      downloadThreads: 1,
      chunkSizeBytes: 8 * 1024 * 1024,
      localFiles: false,
    };
  }

  get kind(): string {
    return this.drive.kind;
  }

  check(signal?: AbortSignal): Promise<void> {
    return this.drive.check(signal);
  }

  async usage(signal?: AbortSignal): Promise<ProviderUsage> {
    await this.drive.check(signal);
    return { totalBytes: null, usedBytes: null, freeBytes: null };
  }

  stat(path: MountPath, signal?: AbortSignal): Promise<ProviderEntry | null> {
    return this.drive.stat(path, signal);
  }

  list(dir: MountPath, signal?: AbortSignal): AsyncIterable<ProviderEntry> {
    return this.drive.list(dir, signal);
  }

  /**
   * The bytes of a range from a fresh link. A link the CDN refuses (401/403: expired or revoked) is asked
   * for again once.
   */
  async read(path: MountPath, options: { range?: ByteRange; signal?: AbortSignal } = {}): Promise<Readable> {
    return (await this.readFromLink(path, options, null)).body;
  }

  /** One range with one lookup: the link's lookup also says the file's size (no stat first). */
  async readKnownSize(
    path: MountPath,
    options: { range: ByteRange; size: number; signal?: AbortSignal },
  ): Promise<{ body: Readable; mtime: Date | null }> {
    return this.readFromLink(path, options, options.size);
  }

  /**
   * The bytes of a range from a fresh link (the drive's lookup of a link also refuses folders and missing
   * paths). A link the CDN refuses (401/403: expired or revoked) is asked for again once.
   */
  private async readFromLink(
    path: MountPath,
    options: { range?: ByteRange; signal?: AbortSignal },
    expectedSize: number | null,
  ): Promise<{ body: Readable; mtime: Date | null }> {
    for (let attempt = 0; ; attempt += 1) {
      const link = await this.drive.directLink(path, { signal: options.signal });
      const file = link.file ?? (await this.statFile(path, options.signal));
      if (expectedSize !== null && file.size !== expectedSize) {
        throw storageErrors.fileChanged(expectedSize, file.size);
      }
      const response = await fetchLink(this.drive.downloads, link, options);
      if ((response.statusCode === 401 || response.statusCode === 403) && attempt === 0) {
        await response.body.dump().catch(() => undefined);
        continue;
      }
      return { body: checkedBody(response, file.size, options.range), mtime: file.mtime };
    }
  }

  private async statFile(path: MountPath, signal?: AbortSignal): Promise<{ size: number; mtime: Date }> {
    const entry = await this.drive.stat(path, signal);
    if (!entry) throw storageErrors.pathNotFound();
    if (entry.type !== 'file') throw storageErrors.isADirectory();
    return entry;
  }

  async directLink(path: MountPath): Promise<DirectLink | null> {
    const link = await this.drive.directLink(path, {});
    // The storage contract's links always expire; a link without expiry is good for the next day.
    return { ...link, expiresAt: link.expiresAt ?? new Date(Date.now() + 86_400_000) };
  }

  write(): Promise<void> {
    return Promise.reject(readOnly());
  }
  mkdir(): Promise<void> {
    return Promise.reject(readOnly());
  }
  move(): Promise<void> {
    return Promise.reject(readOnly());
  }
  copy(): Promise<void> {
    return Promise.reject(readOnly());
  }
  delete(): Promise<void> {
    return Promise.reject(readOnly());
  }

  async localPath(): Promise<string | null> {
    return null;
  }

  close(): Promise<void> {
    return this.drive.close();
  }
}

async function fetchLink(
  dispatcher: Dispatcher,
  link: DriveLink,
  options: { range?: ByteRange; signal?: AbortSignal },
): Promise<Dispatcher.ResponseData> {
  try {
    return await request(link.url, {
      method: 'GET',
      dispatcher,
      headers: { ...link.headers, ...(options.range ? { range: rangeHeader(options.range) } : {}) },
      signal: options.signal,
      headersTimeout: HEADERS_TIMEOUT_MS,
      bodyTimeout: BODY_TIMEOUT_MS,
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw storageErrors.unavailable(`the drive's download host did not answer: ${(error as Error).message}`);
  }
}

/** The body when the answer holds exactly the bytes asked for (the whole file, or the range). */
function checkedBody(response: Dispatcher.ResponseData, size: number, range?: ByteRange): Readable {
  const { statusCode, headers } = response;
  let matches = false;
  if (range && statusCode === 206) {
    const answered = parseContentRange(headers['content-range'] as string | undefined);
    matches = answered !== null && answered.start === range.start && answered.end === range.end;
  } else if (statusCode === 200) {
    matches = !range || (range.start === 0 && range.end === size - 1);
  }
  if (!matches) {
    // undici's body errors (aborted) when destroyed unread: without a listener that would end the process.
    response.body.on('error', () => undefined);
    response.body.destroy();
    if (statusCode === 404) throw storageErrors.pathNotFound();
    throw storageErrors.unavailable(`the drive's download host answered ${statusCode}`);
  }
  return response.body;
}
