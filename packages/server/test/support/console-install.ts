import type { Readable } from 'node:stream';
import type { ErrorBody } from '@svc/contracts';
import type { Clock } from '../../src/platform/cache/index.js';
import type { ComponentFactory } from '../../src/runtime/component.js';
import {
  configComponentFactory,
  type ConfigComponentOptions,
  type ConfigParts,
} from '../../src/services/config/config.component.js';
import { createManualEndpoint } from '../../src/services/config/nodes/manual-endpoints.repository.js';
import { createFrontendComponent } from '../../src/services/frontend/frontend.component.js';
import { createGatewayComponent } from '../../src/services/gateway/gateway.component.js';
import { createUserComponent } from '../../src/services/user/user.component.js';
import { injectInto } from './inject.js';
import { startTestInstall, waitFor, type TestInstall } from './runtime.js';

/*
 * The control plane most console tests need: config, user, gateway and frontend started in this process,
 * the first administrator created and signed in. Calls enter at the console entrance (the frontend) as the
 * web app's do; the entrance runs in-process (inject), its hops to the gateway and on to the services go
 * over loopback as in production.
 */

export interface ConsoleAnswer<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON when the answer is JSON, else undefined. */
  body: T;
  raw: Buffer;
  error: ErrorBody['error'] | undefined;
}

export interface ConsoleCallOptions {
  /** Sent as X-Admin-Token. */
  admin?: string;
  /** Sent as Authorization: Bearer. */
  bearer?: string;
  /** JSON unless `raw` is given. */
  body?: unknown;
  raw?: Buffer | Readable;
  headers?: Record<string, string>;
}

/** The first administrator every console install creates. */
export const CONSOLE_ADMIN = { username: 'root', password: 'correct horse battery' };
/** The password createUser gives, and login uses when none is named. */
export const CONSOLE_PASSWORD = 'long enough password';

export interface ConsoleInstall {
  install: TestInstall;
  config: ConfigParts;
  /** The first administrator's console token. */
  adminToken: string;
  /** A call at the console entrance. */
  api<T = unknown>(method: string, route: string, options?: ConsoleCallOptions): Promise<ConsoleAnswer<T>>;
  /** A call at the console entrance with the first administrator's token. */
  admin<T = unknown>(method: string, route: string, body?: unknown): Promise<ConsoleAnswer<T>>;
  /** A service-token call straight to a service (what other services do). */
  internal<T = unknown>(
    component: 'config' | 'user',
    method: string,
    route: string,
    body?: unknown,
  ): Promise<ConsoleAnswer<T>>;
  /** Creates a user (CONSOLE_PASSWORD unless extra names one); answers its id. */
  createUser(username: string, extra?: Record<string, unknown>): Promise<string>;
  /** Signs in; answers the console's admin token or the portal's access token. */
  login(username: string, client: 'console' | 'portal', password?: string): Promise<string>;
  /** A manual play address (a worker-node record); answers its node id. */
  createEndpoint(host: string): Promise<string>;
  stop(): Promise<void>;
}

export interface ConsoleInstallOptions {
  /** Settings variables on top of the backend's. */
  env?: Record<string, string>;
  clock?: Clock;
  /** Options of the config component (its parts are exposed as `config` in any case). */
  config?: Omit<ConfigComponentOptions, 'expose'>;
  /** Components started after the four of the control plane. */
  extra?: readonly ComponentFactory[];
}

function answerOf<T>(status: number, headers: ConsoleAnswer['headers'], raw: Buffer): ConsoleAnswer<T> {
  const type = String(headers['content-type'] ?? '');
  const parsed: unknown =
    type.includes('json') && raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined;
  return {
    status,
    headers,
    body: parsed as T,
    raw,
    error: (parsed as Partial<ErrorBody> | undefined)?.error,
  };
}

async function call<T>(
  install: TestInstall,
  component: 'frontend' | 'config' | 'user',
  method: string,
  route: string,
  options: ConsoleCallOptions,
): Promise<ConsoleAnswer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.admin) headers['x-admin-token'] = options.admin;
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  let body: string | Buffer | Readable | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.body);
  }
  const answer = await injectInto(install, component, { method, url: route, headers, body });
  return answerOf<T>(answer.status, answer.headers, answer.raw);
}

export async function startConsoleInstall(
  backendEnv: Record<string, string>,
  options: ConsoleInstallOptions = {},
): Promise<ConsoleInstall> {
  let config: ConfigParts | undefined;
  const install = await startTestInstall(
    [
      configComponentFactory({ ...options.config, expose: (parts) => (config = parts) }),
      createUserComponent,
      createGatewayComponent,
      createFrontendComponent,
      ...(options.extra ?? []),
    ],
    backendEnv,
    { env: options.env, clock: options.clock },
  );
  try {
    const api = <T = unknown>(method: string, route: string, callOptions: ConsoleCallOptions = {}) =>
      call<T>(install, 'frontend', method, route, callOptions);
    // The gateway learns the user service from the registry: the entrance answers once it has.
    await waitFor(async () =>
      (await api('GET', '/api/auth/setup/status')).status === 200 ? true : undefined,
    );
    const setup = await api('POST', '/api/auth/setup/admin', { body: CONSOLE_ADMIN });
    if (setup.status !== 201) throw new Error(`setup answered ${setup.status}: ${setup.raw.toString()}`);
    const login = async (username: string, client: 'console' | 'portal', password = CONSOLE_PASSWORD) => {
      const answer = await api<{ adminToken?: string; accessToken: string }>('POST', '/api/auth/login', {
        body: { username, password, client },
      });
      if (answer.status !== 200) throw new Error(`sign-in of ${username} answered ${answer.status}`);
      return client === 'console' ? answer.body.adminToken! : answer.body.accessToken;
    };
    const adminToken = await login(CONSOLE_ADMIN.username, 'console', CONSOLE_ADMIN.password);
    const admin = <T = unknown>(method: string, route: string, body?: unknown) =>
      api<T>(method, route, { admin: adminToken, body });
    return {
      install,
      config: config!,
      adminToken,
      api,
      admin,
      internal: <T>(component: 'config' | 'user', method: string, route: string, body?: unknown) =>
        call<T>(install, component, method, route, {
          headers: { 'x-svc-service-token': install.context.serviceToken },
          body,
        }),
      createUser: async (username, extra = {}) => {
        const created = await admin<{ id: string }>('POST', '/api/auth/admin/users', {
          username,
          password: CONSOLE_PASSWORD,
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
  } catch (error) {
    await install.stop();
    throw error;
  }
}
