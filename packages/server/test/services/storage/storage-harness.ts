import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Identity, Mount, Transfer } from '@svc/contracts';
import { encodeIdentity } from '../../../src/platform/http/route-auth.js';
import type { ComponentFactory } from '../../../src/runtime/component.js';
import { createConfigComponent } from '../../../src/services/config/config.component.js';
import {
  storageComponentFactory,
  type StorageComponent,
  type StorageComponentOptions,
} from '../../../src/services/storage/storage.component.js';
import { injectInto } from '../../support/inject.js';
import { startTestInstall, waitFor, type TestInstall } from '../../support/runtime.js';

export const ADMIN: Identity = {
  userId: '00000000-0000-4000-8000-000000000001',
  username: 'admin',
  role: 'admin',
  permissions: ['storage'],
  tokenKind: 'admin',
  tokenId: 'test-token',
  clientIp: '127.0.0.1',
};

/** A delegated console user holding only the `storage` permission. */
export const DELEGATE: Identity = {
  ...ADMIN,
  userId: '00000000-0000-4000-8000-000000000002',
  username: 'clerk',
  role: 'user',
};

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  json<T = unknown>(): T;
}

export interface StorageHarness {
  install: TestInstall;
  component: StorageComponent;
  base: string;
  /** Calls the storage component as the gateway would (service token plus an identity), in-process. */
  api(
    method: string,
    url: string,
    options?: {
      body?: unknown;
      raw?: Buffer | string;
      headers?: Record<string, string>;
      identity?: Identity | null;
    },
  ): Promise<ApiResponse>;
  /** Creates a local mount over a fresh temp folder; returns the mount and the folder. */
  localMount(name?: string): Promise<{ mount: Mount; root: string }>;
  tempDir(prefix: string): string;
  stop(): Promise<void>;
}

export function serviceHeaders(
  install: TestInstall,
  identity: Identity | null = ADMIN,
): Record<string, string> {
  return {
    'x-svc-service-token': install.context.serviceToken,
    ...(identity ? { 'x-svc-identity': encodeIdentity(identity) } : {}),
  };
}

export async function startStorage(
  backendEnv: Record<string, string>,
  options: StorageComponentOptions = {},
  extra: readonly ComponentFactory[] = [],
  setup?: (component: StorageComponent) => void,
): Promise<StorageHarness> {
  let component: StorageComponent | undefined;
  const capture: ComponentFactory = async (context) => {
    component = await storageComponentFactory(options)(context);
    setup?.(component);
    return component;
  };
  const install = await startTestInstall([createConfigComponent, capture, ...extra], backendEnv);
  const base = install.url('storage');
  const folders: string[] = [];
  const harness: StorageHarness = {
    install,
    component: component!,
    base,
    async api(method, url, options = {}) {
      const identity = options.identity === undefined ? ADMIN : options.identity;
      const headers: Record<string, string> = { ...serviceHeaders(install, identity), ...options.headers };
      let body: string | Buffer | undefined;
      if (options.raw !== undefined) body = options.raw;
      else if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] = 'application/json';
      }
      const response = await injectInto(install, 'storage', { method, url, headers, body });
      const buffer = response.raw;
      return {
        status: response.status,
        headers: response.headers,
        body: buffer,
        json: <T>() => JSON.parse(buffer.toString('utf8')) as T,
      };
    },
    async localMount(name) {
      const root = harness.tempDir('svc-mount-');
      const response = await harness.api('POST', '/api/storage/mounts', {
        body: { name: name ?? `local-${path.basename(root)}`, provider: 'local', config: { root } },
      });
      if (response.status !== 201) throw new Error(`mount not created: ${response.body.toString()}`);
      return { mount: response.json<Mount>(), root };
    },
    tempDir(prefix) {
      const dir = mkdtempSync(path.join(tmpdir(), prefix));
      folders.push(dir);
      return dir;
    },
    async stop() {
      await install.stop();
      for (const dir of folders) rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** Every path below a folder with its size and content hash: compared before and after refused calls. */
export function snapshot(root: string): Record<string, string> {
  const result: Record<string, string> = {};
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full);
      if (entry.isSymbolicLink()) result[rel] = 'link';
      else if (entry.isDirectory()) {
        result[rel] = 'dir';
        visit(full);
      } else {
        result[rel] =
          `${statSync(full).size}:${createHash('sha256').update(readFileSync(full)).digest('hex')}`;
      }
    }
  };
  visit(root);
  return result;
}

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export const q = (value: string) => encodeURIComponent(value);

/** Polls a transfer until it ends (succeeded, failed or cancelled). */
export async function waitForTransfer(
  storage: StorageHarness,
  id: string,
  timeoutMs = 60_000,
): Promise<Transfer> {
  if (!id) throw new Error('no transfer id');
  return waitFor(
    async () => {
      const transfer = (await storage.api('GET', `/api/storage/transfers/${id}`)).json<Transfer>();
      return ['succeeded', 'failed', 'cancelled'].includes(transfer.state) ? transfer : undefined;
    },
    timeoutMs,
    50,
  );
}
