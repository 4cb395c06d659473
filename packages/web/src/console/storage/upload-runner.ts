import type { StorageEntry, Upload } from '@svc/contracts';
import { ApiError } from '../../api/client.js';
import {
  bytesReceived,
  chunkCount,
  clampChunkSize,
  DEFAULT_CHUNK_SIZE,
  missingChunks,
} from './upload-plan.js';

/** The storage node's upload routes, as the runner needs them (the page's transport does HTTP). */
export interface UploadTransport {
  create(
    body: { path: string; size: number; overwrite: boolean; chunkSize: number; sha256?: string },
    signal: AbortSignal,
  ): Promise<Upload>;
  status(uploadId: string, signal: AbortSignal): Promise<Upload>;
  putChunk(
    uploadId: string,
    index: number,
    body: Blob,
    onProgress: (loaded: number) => void,
    signal: AbortSignal,
  ): Promise<void>;
  complete(uploadId: string, signal: AbortSignal): Promise<{ upload: Upload; entry: StorageEntry }>;
  abort(uploadId: string): Promise<void>;
}

/** What is uploaded: a File, or anything that slices like one. */
export interface UploadSource {
  size: number;
  slice(start: number, end: number): Blob;
}

export interface UploadProgress {
  phase: 'starting' | 'sending' | 'completing';
  /** Bytes the node has (or is receiving right now). */
  sent: number;
  size: number;
}

export interface RunUploadOptions {
  source: UploadSource;
  /** Target path of the file inside the mount. */
  path: string;
  overwrite: boolean;
  sha256?: string;
  chunkSize?: number;
  transport: UploadTransport;
  signal: AbortSignal;
  onProgress(progress: UploadProgress): void;
  /** Told the upload's id as soon as it exists (to resume or abort it later). */
  onStarted?(upload: Upload): void;
  /** Continue this open upload (after a failure) instead of starting a new one. */
  resumeId?: string;
  /** Attempts per chunk for failures that may pass (network, 5xx, 429). */
  attempts?: number;
  wait?: (ms: number) => Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Network trouble and server-side failures are worth another try; refusals are not. */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  return error.status === 0 || error.status === 429 || error.status >= 500;
}

function missingOf(error: unknown): number[] | undefined {
  if (!(error instanceof ApiError) || error.code !== 'UPLOAD_INCOMPLETE') return undefined;
  const details = error.details as { missing?: unknown } | undefined;
  return Array.isArray(details?.missing) ? details.missing.filter((value) => typeof value === 'number') : [];
}

/**
 * Uploads one file in chunks: start (or resume) the upload, send every chunk the node lacks — retrying
 * transient failures — then complete it; a completion that finds chunks missing sends them and completes
 * again. Aborting the signal stops at once and the caller decides whether to delete the upload.
 */
export async function runUpload(options: RunUploadOptions): Promise<StorageEntry> {
  const { source, transport, signal } = options;
  const attempts = options.attempts ?? 3;
  const wait = options.wait ?? sleep;
  options.onProgress({ phase: 'starting', sent: 0, size: source.size });

  const upload = options.resumeId
    ? await transport.status(options.resumeId, signal)
    : await transport.create(
        {
          path: options.path,
          size: source.size,
          overwrite: options.overwrite,
          chunkSize: clampChunkSize(options.chunkSize ?? DEFAULT_CHUNK_SIZE),
          ...(options.sha256 ? { sha256: options.sha256 } : {}),
        },
        signal,
      );
  options.onStarted?.(upload);
  const { chunkSize } = upload;
  let received = [...upload.received];

  const sendChunks = async () => {
    for (const range of missingChunks(source.size, chunkSize, received)) {
      const base = bytesReceived(source.size, chunkSize, received);
      for (let attempt = 1; ; attempt += 1) {
        signal.throwIfAborted();
        try {
          await transport.putChunk(
            upload.id,
            range.index,
            source.slice(range.start, range.end),
            (loaded) => options.onProgress({ phase: 'sending', sent: base + loaded, size: source.size }),
            signal,
          );
          break;
        } catch (error) {
          if (signal.aborted || !isTransient(error) || attempt >= attempts) throw error;
          await wait(1000 * attempt);
        }
      }
      received = [...received, range.index];
      options.onProgress({
        phase: 'sending',
        sent: bytesReceived(source.size, chunkSize, received),
        size: source.size,
      });
    }
  };

  await sendChunks();
  for (let round = 1; ; round += 1) {
    signal.throwIfAborted();
    options.onProgress({ phase: 'completing', sent: source.size, size: source.size });
    try {
      return (await transport.complete(upload.id, signal)).entry;
    } catch (error) {
      const missing = missingOf(error);
      if (!missing || round >= attempts) throw error;
      const all = new Set(Array.from({ length: chunkCount(source.size, chunkSize) }, (_, index) => index));
      for (const index of missing) all.delete(index);
      received = [...all];
      // The node lost chunks it had acknowledged (it restarted): send them again.
      await sendChunks();
    }
  }
}
