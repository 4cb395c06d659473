import type { Readable } from 'node:stream';
import { request } from 'undici';
import type { ErrorBody } from '@svc/contracts';
import {
  configComponentFactory,
  type ConfigParts,
} from '../../../../src/services/config/config.component.js';
import { createManualEndpoint } from '../../../../src/services/config/nodes/manual-endpoints.repository.js';
import { createFrontendComponent } from '../../../../src/services/frontend/frontend.component.js';
import { createGatewayComponent } from '../../../../src/services/gateway/gateway.component.js';
import { createUserComponent } from '../../../../src/services/user/user.component.js';
import { startTestInstall, waitFor, type TestInstall } from '../../../support/runtime.js';

export interface Answer<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  raw: Buffer;
  error: ErrorBody['error'] | undefined;
}

export interface CallOptions {
  admin?: string;
  bearer?: string;
  /** JSON unless `raw` is given. */
  body?: unknown;
  raw?: Buffer | Readable;
  headers?: Record<string, string>;
}

export const ADMIN = { username: 'root', password: 'correct horse battery' };
export const PASSWORD = 'long enough password';

/** Config, user, gateway and frontend in this process, called like the web app does: through 18080. */
export interface SettingsInstall {
  install: TestInstall;
  config: ConfigParts;
  adminToken: string;
  api<T = unknown>(method: string, route: string, options?: CallOptions): Promise<Answer<T>>;
  admin<T = unknown>(method: string, route: string, body?: unknown): Promise<Answer<T>>;
  /** A service-token call straight to a service (what other services do). */
  internal(component: 'config' | 'user', method: string, route: string): Promise<Answer>;
  createUser(username: string, extra?: Record<string, unknown>): Promise<string>;
  login(username: string, client: 'console' | 'portal', password?: string): Promise<string>;
  createEndpoint(host: string): Promise<string>;
  stop(): Promise<void>;
}

async function send<T>(url: string, method: string, options: CallOptions): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.admin) headers['x-admin-token'] = options.admin;
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  let body: string | Buffer | Readable | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.body);
  }
  const response = await request(url, { method: method as 'GET', headers, body });
  const raw = Buffer.from(await response.body.arrayBuffer());
  let parsed: unknown;
  const type = String(response.headers['content-type'] ?? '');
  if (type.includes('json') && raw.length > 0) parsed = JSON.parse(raw.toString('utf8'));
  return {
    status: response.statusCode,
    headers: response.headers,
    body: parsed as T,
    raw,
    error: (parsed as Partial<ErrorBody> | undefined)?.error,
  };
}

export async function startSettingsInstall(
  backendEnv: Record<string, string>,
  options: { env?: Record<string, string> } = {},
): Promise<SettingsInstall> {
  let config: ConfigParts | undefined;
  const install = await startTestInstall(
    [
      configComponentFactory({ expose: (parts) => (config = parts) }),
      createUserComponent,
      createGatewayComponent,
      createFrontendComponent,
    ],
    backendEnv,
    { env: options.env },
  );
  const api = <T = unknown>(method: string, route: string, callOptions: CallOptions = {}) =>
    send<T>(`${install.url('frontend')}${route}`, method, callOptions);
  await waitFor(async () => ((await api('GET', '/api/auth/setup/status')).status === 200 ? true : undefined));
  const setup = await api('POST', '/api/auth/setup/admin', { body: ADMIN });
  if (setup.status !== 201) throw new Error(`setup answered ${setup.status}`);
  const login = async (username: string, client: 'console' | 'portal', password = PASSWORD) => {
    const answer = await api<{ adminToken?: string; accessToken: string }>('POST', '/api/auth/login', {
      body: { username, password, client },
    });
    if (answer.status !== 200) throw new Error(`sign-in of ${username} answered ${answer.status}`);
    return client === 'console' ? answer.body.adminToken! : answer.body.accessToken;
  };
  const adminToken = await login(ADMIN.username, 'console', ADMIN.password);
  const admin = <T = unknown>(method: string, route: string, body?: unknown) =>
    api<T>(method, route, { admin: adminToken, body });
  return {
    install,
    config: config!,
    adminToken,
    api,
    admin,
    internal: (component, method, route) =>
      send(`${install.url(component)}${route}`, method, {
        headers: { 'x-svc-service-token': install.context.serviceToken },
      }),
    createUser: async (username, extra = {}) => {
      const created = await admin<{ id: string }>('POST', '/api/auth/admin/users', {
        username,
        password: PASSWORD,
        ...extra,
      });
      if (created.status !== 201)
        throw new Error(`user ${username}: ${created.status} ${created.raw.toString()}`);
      return created.body.id;
    },
    login,
    createEndpoint: async (host) =>
      (await createManualEndpoint(config!.database.db, { name: host, host })).nodeId,
    stop: () => install.stop(),
  };
}

// --- Test images: only their first bytes matter to the server ------------------------------------------------

export const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
export const GIF_1X1 = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
export const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
  Buffer.from('JFIF\0 jpeg body'),
]);
export const WEBP = Buffer.concat([
  Buffer.from('RIFF'),
  Buffer.from([0x1a, 0, 0, 0]),
  Buffer.from('WEBPVP8 '),
  Buffer.alloc(14, 1),
]);
/** One 16×16 icon entry pointing past the header. */
export const ICO = Buffer.concat([
  Buffer.from([0, 0, 1, 0, 1, 0]),
  Buffer.from([16, 16, 0, 0, 1, 0, 32, 0, 4, 0, 0, 0, 22, 0, 0, 0]),
  Buffer.alloc(4, 0xaa),
]);
export const SVG = Buffer.from(
  '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
);

/** A PNG of exactly `size` bytes (signature, then filler). */
export function pngOfSize(size: number): Buffer {
  const bytes = Buffer.alloc(size, 0x42);
  PNG_1X1.copy(bytes, 0, 0, Math.min(PNG_1X1.length, size));
  return bytes;
}

/** A multipart/form-data body with one file field. */
export function multipart(
  field: string,
  bytes: Buffer,
  fileName = 'logo.png',
): { body: Buffer; type: string } {
  const boundary = `----svc-test-${Math.random().toString(16).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\nContent-Type: image/png\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}
