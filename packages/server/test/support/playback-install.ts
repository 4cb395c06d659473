import { request, type Dispatcher } from 'undici';
import type { Clock } from '../../src/platform/cache/index.js';
import { configComponentFactory, type ConfigParts } from '../../src/services/config/config.component.js';
import {
  createManualEndpoint,
  regenerateEndpointToken,
} from '../../src/services/config/nodes/manual-endpoints.repository.js';
import { loadRole } from '../../src/runtime/roles.js';
import { mediaFixtures, type MediaFixtures } from './media-fixtures.js';
import { startTestInstall, waitFor, type TestInstall } from './runtime.js';

export type Json = Record<string, unknown>;

export interface Answer<T = Json> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export async function call<T = Json>(
  base: string,
  method: string,
  route: string,
  options: { headers?: Record<string, string>; body?: unknown; dispatcher?: Dispatcher } = {},
): Promise<Answer<T>> {
  const response = await request(`${base}${route}`, {
    method: method as 'GET',
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    dispatcher: options.dispatcher,
  });
  const text = await response.body.text();
  let body: unknown = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = {};
  }
  return { status: response.statusCode, headers: response.headers, body: body as T, text };
}

/** A whole install (control plane, storage node, play-agent) in the test process, with a scanned library. */
export interface PlaybackInstall {
  install: TestInstall;
  fixtures: MediaFixtures;
  entrance: string;
  playAgent: string;
  adminToken: string;
  admin(method: string, route: string, body?: unknown): Promise<Answer>;
  createUser(username: string, password: string): Promise<string>;
  libraries: { movies: string; series: string };
  /** Another library on a new local mount of `root`, scanned; answers its id. */
  addLocalLibrary(name: string, type: 'movies' | 'series', root: string): Promise<string>;
  /** A manual reverse-proxy address with its endpoint token, made in the config service's database. */
  createEndpoint(host: string): Promise<{ nodeId: string; endpointToken: string }>;
  regenerateEndpoint(nodeId: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startPlaybackInstall(
  backendEnv: Record<string, string>,
  env: Record<string, string> = {},
  options: { clock?: Clock } = {},
): Promise<PlaybackInstall> {
  const fixtures = await mediaFixtures();
  let config: ConfigParts | undefined;
  const control = (await loadRole('standalone-control')).slice(1);
  const install = await startTestInstall(
    [
      configComponentFactory({ expose: (parts) => (config = parts) }),
      ...control,
      ...(await loadRole('storage')),
      ...(await loadRole('play-agent')),
    ],
    backendEnv,
    { env, ...(options.clock ? { clock: options.clock } : {}) },
  );
  const entrance = install.url('frontend');
  const playAgent = `http://127.0.0.1:${install.context.settings.playAgent.listenPort}`;
  await waitFor(
    async () => ((await call(entrance, 'GET', '/api/storage/ping')).status === 200 ? true : undefined),
    20_000,
  );
  await waitFor(async () =>
    (await call(entrance, 'GET', '/api/auth/setup/status')).status === 200 ? true : undefined,
  );
  const setup = await call(entrance, 'POST', '/api/auth/setup/admin', {
    body: { username: 'root', password: 'root-password-1' },
  });
  if (setup.status !== 201) throw new Error(`setup failed: ${setup.text}`);
  const login = await call(entrance, 'POST', '/api/auth/login', {
    body: { username: 'root', password: 'root-password-1', client: 'console' },
  });
  const adminToken = String(login.body.adminToken);
  const admin = (method: string, route: string, body?: unknown) =>
    call(entrance, method, route, { headers: { 'x-admin-token': adminToken }, body });

  const localMount = async (name: string, root: string) => {
    const mount = await admin('POST', '/api/storage/mounts', { name, provider: 'local', config: { root } });
    if (mount.status !== 201 && mount.status !== 200) throw new Error(`mount failed: ${mount.text}`);
    return String(mount.body.id);
  };
  const mountId = await localMount('fixtures', fixtures.library);
  const nodeId = install.context.settings.storageNodeId;
  const library = async (name: string, type: string, path: string, inMount = mountId) => {
    const created = await admin('POST', '/api/media/libraries', {
      name,
      type,
      sources: [{ nodeId, mountId: inMount, path }],
    });
    if (created.status !== 201) throw new Error(`library failed: ${created.text}`);
    const id = String(created.body.id);
    // Creating the library started its first scan.
    await waitFor(
      async () => {
        const state = await admin('GET', `/api/media/libraries/${id}/scan`);
        const status = (state.body.scan ?? {}) as Json;
        if (status.state === 'failed') throw new Error(`scan failed: ${state.text}`);
        return status.state === 'succeeded' ? true : undefined;
      },
      120_000,
      250,
    );
    return id;
  };
  const movies = await library('Movies', 'movies', '/Movies');
  const series = await library('Shows', 'series', '/TV');

  return {
    install,
    fixtures,
    entrance,
    playAgent,
    adminToken,
    admin,
    libraries: { movies, series },
    addLocalLibrary: async (name, type, root) => library(name, type, '/', await localMount(name, root)),
    createUser: async (username, password) => {
      const created = await admin('POST', '/api/auth/admin/users', { username, password });
      if (created.status !== 201) throw new Error(`user failed: ${created.text}`);
      return String(created.body.id);
    },
    createEndpoint: async (host) => {
      const created = await createManualEndpoint(config!.database.db, { name: host, host });
      return { nodeId: created.nodeId, endpointToken: created.endpointToken };
    },
    regenerateEndpoint: async (nodeId) =>
      (await regenerateEndpointToken(config!.database.db, nodeId)).endpointToken,
    stop: () => install.stop(),
  };
}

/** Signs in through the play-agent as an Emby app does; answers the access token and the protocol user id. */
export async function signInPlayer(
  playAgent: string,
  authorization: string,
  credentials: { username: string; password: string },
): Promise<{ token: string; userId: string }> {
  const answer = await call(playAgent, 'POST', '/emby/Users/AuthenticateByName', {
    headers: { 'x-emby-authorization': authorization },
    body: { Username: credentials.username, Pw: credentials.password },
  });
  if (answer.status !== 200) throw new Error(`sign-in answered ${answer.status}: ${answer.text}`);
  return { token: String(answer.body.AccessToken), userId: String((answer.body.User as Json).Id) };
}
