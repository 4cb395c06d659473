import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { useWindowEvent } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../session/session.js';
import { joinPath } from './mount-path.js';
import { useStorageTarget } from './storage-query.js';
import { shouldHash, toHex } from './upload-plan.js';
import { isTransient, runUpload } from './upload-runner.js';
import { createUploadTransport } from './upload-transport.js';
import { endpoints } from '@svc/contracts';
import { endpointPath } from '../../api/endpoint-client.js';
import { invalidateEndpoints } from '../../api/endpoint-hooks.js';

export type UploadStatus = 'queued' | 'hashing' | 'sending' | 'completing' | 'done' | 'failed' | 'cancelled';

export interface UploadJob {
  id: string;
  mountId: string;
  /** Target path inside the mount. */
  path: string;
  name: string;
  size: number;
  overwrite: boolean;
  status: UploadStatus;
  /** Bytes the node has. */
  sent: number;
  error?: unknown;
  /** The node's upload, once started (to resume or abort it). */
  uploadId?: string;
  nodeHeaders: Record<string, string>;
}

export const ACTIVE_UPLOAD: readonly UploadStatus[] = ['hashing', 'sending', 'completing'];

interface UploadsValue {
  jobs: UploadJob[];
  add(mountId: string, dir: string, files: readonly File[]): void;
  cancel(id: string): void;
  /** Runs a failed or cancelled upload again; `overwrite` replaces an existing file this time. */
  retry(id: string, overwrite?: boolean): void;
  clearFinished(): void;
}

const UploadsContext = createContext<UploadsValue | undefined>(undefined);

export function useUploads(): UploadsValue {
  const value = useContext(UploadsContext);
  if (!value) throw new Error('useUploads outside UploadsProvider');
  return value;
}

let nextJobId = 1;

/**
 * The storage page's upload queue: files go up one after another in chunks (upload-runner), with progress,
 * cancel (which deletes the node's upload) and retry (which resumes an interrupted upload).
 */
export function UploadsProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation('storage');
  const { credentials, app } = useSession();
  const target = useStorageTarget();
  const queryClient = useQueryClient();
  const [jobs, setJobs] = useState<UploadJob[]>([]);
  // The queue as the handlers last left it: the next upload is chosen from it at once, in the handler that
  // ended, added or retried one, rather than in an effect after the render.
  const queue = useRef<UploadJob[]>([]);
  const files = useRef(new Map<string, File>());
  const controllers = useRef(new Map<string, AbortController>());
  const mounted = useRef(false);

  const change = useCallback((next: (current: UploadJob[]) => UploadJob[]) => {
    queue.current = next(queue.current);
    setJobs(queue.current);
  }, []);

  const update = useCallback(
    (id: string, patch: Partial<UploadJob>) => {
      change((current) => current.map((job) => (job.id === id ? { ...job, ...patch } : job)));
    },
    [change],
  );

  /** One upload at a time: starts the next queued one when none runs. */
  const advance = useCallback(() => {
    const start = async (job: UploadJob) => {
      const file = files.current.get(job.id);
      if (!file) return;
      const controller = new AbortController();
      controllers.current.set(job.id, controller);
      const transport = createUploadTransport(credentials, job.nodeHeaders, job.mountId);
      let uploadId = job.uploadId;
      try {
        let sha256: string | undefined;
        if (!uploadId && shouldHash(file.size, Boolean(globalThis.crypto?.subtle))) {
          update(job.id, { status: 'hashing', sent: 0 });
          sha256 = toHex(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()));
        }
        controller.signal.throwIfAborted();
        await runUpload({
          source: file,
          path: job.path,
          overwrite: job.overwrite,
          ...(sha256 ? { sha256 } : {}),
          ...(uploadId ? { resumeId: uploadId } : {}),
          transport,
          signal: controller.signal,
          onStarted: (upload) => {
            uploadId = upload.id;
            update(job.id, { uploadId: upload.id });
          },
          onProgress: (progress) =>
            update(job.id, {
              status: progress.phase === 'completing' ? 'completing' : 'sending',
              sent: progress.sent,
            }),
        });
        update(job.id, { status: 'done', sent: file.size, error: undefined });
        files.current.delete(job.id);
        notifications.show({ color: 'green', message: t('uploads.done', { name: job.name }) });
        void invalidateEndpoints(queryClient, app, [
          endpointPath(endpoints.storage.browse, { mountId: job.mountId }),
        ]);
      } catch (error) {
        if (controller.signal.aborted) {
          if (uploadId) void transport.abort(uploadId).catch(() => undefined);
          update(job.id, { status: 'cancelled', uploadId: undefined });
        } else {
          update(job.id, { status: 'failed', error });
        }
      } finally {
        controllers.current.delete(job.id);
      }
      next();
    };
    const next = () => {
      // Leaving the storage page stops the queue with the running upload.
      if (!mounted.current) return;
      if (queue.current.some((job) => ACTIVE_UPLOAD.includes(job.status))) return;
      const job = queue.current.find((candidate) => candidate.status === 'queued');
      if (!job) return;
      // Marked started at once, so it is not started twice.
      update(job.id, { status: 'sending' });
      void start(job);
    };
    next();
  }, [credentials, update, queryClient, app, t]);

  // Leaving the storage page stops the uploads (the node's uploads expire after a day).
  useEffect(() => {
    mounted.current = true;
    const running = controllers.current;
    return () => {
      mounted.current = false;
      for (const controller of running.values()) controller.abort();
    };
  }, []);

  useWindowEvent('beforeunload', (event) => {
    if (controllers.current.size > 0) event.preventDefault();
  });

  const value = useMemo<UploadsValue>(
    () => ({
      jobs,
      add(mountId, dir, added) {
        const created = added.map((file): UploadJob => {
          const id = `upload-${nextJobId++}`;
          files.current.set(id, file);
          return {
            id,
            mountId,
            path: joinPath(dir, file.name),
            name: file.name,
            size: file.size,
            overwrite: false,
            status: 'queued',
            sent: 0,
            nodeHeaders: target.headers,
          };
        });
        change((current) => [...current, ...created]);
        advance();
      },
      cancel(id) {
        const controller = controllers.current.get(id);
        if (controller) {
          controller.abort();
          return;
        }
        const job = queue.current.find((candidate) => candidate.id === id);
        if (job?.uploadId) {
          void createUploadTransport(credentials, job.nodeHeaders, job.mountId)
            .abort(job.uploadId)
            .catch(() => undefined);
        }
        update(id, { status: 'cancelled', uploadId: undefined });
      },
      retry(id, overwrite) {
        const job = queue.current.find((candidate) => candidate.id === id);
        if (!job || !files.current.has(id)) return;
        // An interrupted upload resumes; one the node refused starts over.
        const resume = job.uploadId !== undefined && isTransient(job.error) && overwrite === undefined;
        if (job.uploadId && !resume) {
          void createUploadTransport(credentials, job.nodeHeaders, job.mountId)
            .abort(job.uploadId)
            .catch(() => undefined);
        }
        update(id, {
          status: 'queued',
          error: undefined,
          sent: 0,
          overwrite: overwrite ?? job.overwrite,
          uploadId: resume ? job.uploadId : undefined,
        });
        advance();
      },
      clearFinished() {
        const kept = queue.current.filter((job) => job.status !== 'done' && job.status !== 'cancelled');
        for (const job of queue.current) if (!kept.includes(job)) files.current.delete(job.id);
        change(() => kept);
      },
    }),
    [jobs, target.headers, credentials, update, change, advance],
  );

  return <UploadsContext.Provider value={value}>{children}</UploadsContext.Provider>;
}
