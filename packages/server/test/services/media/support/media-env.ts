import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { ALL_PERMISSIONS, type Identity, type ScanStatus } from '@svc/contracts';
import { encodeIdentity } from '../../../../src/platform/http/route-auth.js';
import { createConfigComponent } from '../../../../src/services/config/config.component.js';
import { mediaComponentFactory, type MediaParts } from '../../../../src/services/media/media.component.js';
import type { InstallBackend } from '../../../support/install-backends.js';
import { mediaFixtures, type MediaFixtures } from '../../../support/media-fixtures.js';
import { startTestInstall, waitFor, type TestInstall } from '../../../support/runtime.js';
import { startFakeStorageNode, type FakeStorageNode } from './fake-storage-node.js';
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
  body?: unknown;
  /** null: no identity header; default: the administrator. */
  identity?: Identity | null;
  /** false: no service token (as a caller that bypassed the gateway). */
  serviceToken?: boolean;
  headers?: Record<string, string>;
}

export interface MediaTestEnv {
  install: TestInstall;
  fixtures: MediaFixtures;
  /** A private copy of the fixture library: tests may add and remove files here. */
  libraryRoot: string;
  storage: FakeStorageNode;
  /** Mount id of libraryRoot on the storage node. */
  mountId: string;
  synthetic: FakeStorageNode;
  syntheticMountId: string;
  tmdb: FakeTmdb;
  parts: MediaParts;
  api<T = unknown>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    options?: ApiOptions,
  ): Promise<ApiAnswer<T>>;
  /** Waits until the scan has ended and returns it. */
  waitForScan(libraryId: string, scanId: string, timeoutMs?: number): Promise<ScanStatus>;
  stop(): Promise<void>;
}

/**
 * The config service (registry) and the media service of a test install, a fake storage node serving a
 * private copy of the fixture library (probe on), a second one serving the synthetic tree (no probe
 * tool), and the fake metadata provider configured in the media service's settings.
 */
export async function startMediaTestEnv(backend: InstallBackend): Promise<MediaTestEnv> {
  const fixtures = await mediaFixtures();
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'svc-media-test-'));
  const libraryRoot = path.join(workDir, 'library');
  await cp(fixtures.library, libraryRoot, { recursive: true });
  const tmdb = await startFakeTmdb();
  let parts: MediaParts | undefined;
  const install = await startTestInstall(
    [createConfigComponent, mediaComponentFactory({ expose: (exposed) => (parts = exposed) })],
    backend.env,
  );
  const mountId = randomUUID();
  const syntheticMountId = randomUUID();
  const storage = await startFakeStorageNode({
    nodeId: 'node-fake-media',
    serviceToken: install.context.serviceToken,
    mounts: [{ id: mountId, name: 'Library', root: libraryRoot }],
  });
  const synthetic = await startFakeStorageNode({
    nodeId: 'node-fake-synthetic',
    serviceToken: install.context.serviceToken,
    mounts: [{ id: syntheticMountId, name: 'Synthetic', root: fixtures.synthetic.root }],
    probeAvailable: false,
  });
  storage.register(install.context.registry);
  synthetic.register(install.context.registry);
  await waitFor(async () => {
    const found = await install.context.registry.lookup('svc-control-storage');
    return found.length >= 2 ? true : undefined;
  });

  const api = async <T>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    options: ApiOptions = {},
  ): Promise<ApiAnswer<T>> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.serviceToken !== false) headers['x-svc-service-token'] = install.context.serviceToken;
    const identity = options.identity === undefined ? ADMIN : options.identity;
    if (identity) headers['x-svc-identity'] = encodeIdentity(identity);
    if (options.body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await request(`${install.url('media')}${url}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const raw = Buffer.from(await response.body.arrayBuffer());
    const type = String(response.headers['content-type'] ?? '');
    const body = (type.includes('json') && raw.length > 0 ? JSON.parse(raw.toString('utf8')) : raw) as T;
    return { status: response.statusCode, body, headers: response.headers, raw };
  };

  const configured = await api('PUT', '/api/media/settings/metadata-provider', {
    body: { enabled: true, baseUrl: tmdb.baseUrl, apiKey: tmdb.apiKey },
  });
  if (configured.status !== 200)
    throw new Error(`cannot configure the provider: ${JSON.stringify(configured.body)}`);

  return {
    install,
    fixtures,
    libraryRoot,
    storage,
    mountId,
    synthetic,
    syntheticMountId,
    tmdb,
    parts: parts!,
    api,
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
    stop: async () => {
      await install.stop();
      await Promise.all([storage.close(), synthetic.close(), tmdb.close()]);
      await rm(workDir, { recursive: true, force: true });
      await backend.cleanup();
    },
  };
}
