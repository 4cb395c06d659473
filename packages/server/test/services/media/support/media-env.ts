import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  ALL_PERMISSIONS,
  type Identity,
  type Library,
  type LibrarySourceInput,
  type LibraryType,
  type Mount,
  type ScanStatus,
} from '@svc/contracts';
import { encodeIdentity } from '../../../../src/platform/http/route-auth.js';
import { createConfigComponent } from '../../../../src/services/config/config.component.js';
import { mediaComponentFactory, type MediaParts } from '../../../../src/services/media/media.component.js';
import { storageComponentFactory } from '../../../../src/services/storage/storage.component.js';
import type { InstallBackend } from '../../../support/install-backends.js';
import { mediaFixtures, type MediaFixtures } from '../../../support/media-fixtures.js';
import { injectInto } from '../../../support/inject.js';
import { startTestInstall, waitFor, type TestInstall } from '../../../support/runtime.js';
import { startFakeTmdb, type FakeTmdb } from './fake-tmdb.js';

export const ADMIN: Identity = {
  userId: '00000000-0000-4000-8000-000000000001',
  username: 'admin',
  role: 'admin',
  permissions: [...ALL_PERMISSIONS],
  tokenKind: 'admin',
  tokenId: 'token-admin',
  clientIp: '127.0.0.1',
};

/** A console account that may manage settings but not libraries. */
export const SETTINGS_ONLY: Identity = {
  ...ADMIN,
  userId: '00000000-0000-4000-8000-000000000002',
  username: 'helper',
  role: 'user',
  permissions: ['settings'],
  tokenId: 'token-helper',
};

export interface ApiAnswer<T> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
}

export interface ApiOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as it is, as application/octet-stream unless a content-type header says otherwise. */
  raw?: Buffer;
  /** null: no identity header; default: the administrator. */
  identity?: Identity | null;
  /** false: no service token (as a caller that bypassed the gateway). */
  serviceToken?: boolean;
  headers?: Record<string, string>;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Api = <T = unknown>(method: Method, url: string, options?: ApiOptions) => Promise<ApiAnswer<T>>;

export interface MediaTestEnvOptions {
  /**
   * What the storage node's one local mount serves:
   * - 'library' (default): a private copy of the fixture library, probed with the real ffprobe;
   * - 'synthetic': the shared synthetic tree of 10,000 empty files (read only), on a node started with an
   *   ffprobe path that does not exist. Its 6,000 "videos" are zero-byte files that ffprobe could not read
   *   anyway: probing each would only cost minutes; with the tool absent the node answers
   *   `available: false`, which is the case this suite checks.
   */
  tree?: 'library' | 'synthetic';
}

export interface MediaTestEnv {
  install: TestInstall;
  fixtures: MediaFixtures;
  /**
   * The folder the mount serves. For 'library' a private copy of the fixture library: tests may add and
   * remove files here (the node sees them at once: walks are never cached).
   */
  mountRoot: string;
  /** The install's real storage node (`storageComponentFactory`). */
  storage: { nodeId: string; api: Api };
  /** Id of the local mount over mountRoot, created through the node's console API. */
  mountId: string;
  tmdb: FakeTmdb;
  parts: MediaParts;
  /** The media service, called as the gateway would (service token plus identity). */
  api: Api;
  /** A library source: `folder` inside the storage node's mount. */
  source(folder: string): LibrarySourceInput;
  /** Creates a library over one folder of the mount without scanning it; fails unless it is created. */
  createLibrary(name: string, type: LibraryType, folder: string): Promise<Library>;
  /** Starts a scan of the library; fails unless it is accepted (202). */
  startScan(libraryId: string, mode: 'full' | 'incremental'): Promise<ScanStatus>;
  /** Waits until the scan has ended and returns it. */
  waitForScan(libraryId: string, scanId: string, timeoutMs?: number): Promise<ScanStatus>;
  stop(): Promise<void>;
}

/** A test API client for one component of the install, as the gateway calls it (in-process). */
function apiFor(install: TestInstall, component: 'media' | 'storage'): Api {
  return async <T>(method: Method, url: string, options: ApiOptions = {}): Promise<ApiAnswer<T>> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.serviceToken !== false) headers['x-svc-service-token'] = install.context.serviceToken;
    const identity = options.identity === undefined ? ADMIN : options.identity;
    if (identity) headers['x-svc-identity'] = encodeIdentity(identity);
    let body: Buffer | string | undefined;
    if (options.raw !== undefined) {
      headers['content-type'] ??= 'application/octet-stream';
      body = options.raw;
    } else if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.body);
    }
    const {
      status,
      headers: answered,
      raw,
    } = await injectInto(install, component, { method, url, headers, body });
    const type = String(answered['content-type'] ?? '');
    const parsed = (type.includes('json') && raw.length > 0 ? JSON.parse(raw.toString('utf8')) : raw) as T;
    return { status, body: parsed, headers: answered, raw };
  };
}

/**
 * One test install with the config service (registry), the real storage node and the media service, a
 * local mount created through the node's console API, and the fake metadata provider configured in the
 * media service's settings. The media service finds the node through the registry and reads the mount
 * over the node's internal API, as in production.
 */
export async function startMediaTestEnv(
  backend: InstallBackend,
  options: MediaTestEnvOptions = {},
): Promise<MediaTestEnv> {
  const tree = options.tree ?? 'library';
  const fixtures = await mediaFixtures();
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'svc-media-test-'));
  const mountRoot = tree === 'library' ? path.join(workDir, 'library') : fixtures.synthetic.root;
  if (tree === 'library') await cp(fixtures.library, mountRoot, { recursive: true });
  const tmdb = await startFakeTmdb();
  let parts: MediaParts | undefined;
  let install: TestInstall | undefined;
  try {
    install = await startTestInstall(
      [
        createConfigComponent,
        storageComponentFactory(
          tree === 'synthetic' ? { ffprobe: path.join(workDir, 'no-such-ffprobe') } : {},
        ),
        mediaComponentFactory({
          expose: (exposed) => (parts = exposed),
          // No user service runs here: every user sees every library (library-access.test.ts covers the rule).
          libraryAccess: async () => ({ mode: 'ALL', libraryIds: [] }),
        }),
      ],
      backend.env,
    );
  } catch (error) {
    await tmdb.close();
    await rm(workDir, { recursive: true, force: true });
    await backend.cleanup().catch(() => undefined);
    throw error;
  }
  const started = install;
  const nodeId = started.context.settings.storageNodeId;
  const api = apiFor(started, 'media');
  const storageApi = apiFor(started, 'storage');
  const stop = async () => {
    await started.stop();
    await tmdb.close();
    await rm(workDir, { recursive: true, force: true });
    await backend.cleanup();
  };

  try {
    // A local mount needs the administrator role (ADMIN, the default identity).
    const mount = await storageApi<Mount>('POST', '/api/storage/mounts', {
      body: {
        name: tree === 'library' ? 'Library' : 'Synthetic',
        provider: 'local',
        config: { root: mountRoot },
      },
    });
    if (mount.status !== 201) throw new Error(`cannot create the mount: ${JSON.stringify(mount.body)}`);
    // The node registers itself when it starts; wait until the registry answers with it.
    await waitFor(async () =>
      (await started.context.registry.lookup('svc-control-storage', nodeId)).length > 0 ? true : undefined,
    );

    const configured = await api('PUT', '/api/media/settings/metadata-provider', {
      body: { enabled: true, baseUrl: tmdb.baseUrl, apiKey: tmdb.apiKey },
    });
    if (configured.status !== 200)
      throw new Error(`cannot configure the provider: ${JSON.stringify(configured.body)}`);

    const source = (folder: string): LibrarySourceInput => ({ nodeId, mountId: mount.body.id, path: folder });
    return {
      install: started,
      fixtures,
      mountRoot,
      storage: { nodeId, api: storageApi },
      mountId: mount.body.id,
      tmdb,
      parts: parts!,
      api,
      source,
      createLibrary: async (name, type, folder) => {
        const created = await api<Library>('POST', '/api/media/libraries', {
          body: { name, type, sources: [source(folder)], scan: false },
        });
        if (created.status !== 201)
          throw new Error(
            `cannot create the library ${name}: ${created.status} ${JSON.stringify(created.body)}`,
          );
        return created.body;
      },
      startScan: async (libraryId, mode) => {
        const started = await api<ScanStatus>('POST', `/api/media/libraries/${libraryId}/scan`, {
          body: { mode },
        });
        if (started.status !== 202)
          throw new Error(`the scan did not start: ${started.status} ${JSON.stringify(started.body)}`);
        return started.body;
      },
      waitForScan: (libraryId, scanId, timeoutMs = 60_000) =>
        waitFor(
          async () => {
            const answer = await api<{ scan: ScanStatus | null }>(
              'GET',
              `/api/media/libraries/${libraryId}/scan`,
            );
            const scan = answer.body.scan;
            if (scan?.id !== scanId) {
              // A newer scan shows; ask the queue table directly for this one.
              const row = await parts!.scans.get(scanId);
              return row && ['succeeded', 'failed', 'cancelled'].includes(row.state)
                ? ({ id: row.id, state: row.state } as ScanStatus)
                : undefined;
            }
            return ['succeeded', 'failed', 'cancelled'].includes(scan.state) ? scan : undefined;
          },
          timeoutMs,
          50,
        ),
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
