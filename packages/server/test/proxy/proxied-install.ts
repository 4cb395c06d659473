import type { Dispatcher } from 'undici';
import type { DoctorOptions } from '../../src/cli/doctor.js';
import { probe, probeDispatcher, type ProbeAnswer } from '../../src/doctor/http-probe.js';
import { nginxSites, type ProxySitesOptions } from '../../src/proxy-sites/index.js';
import { startNginx, type RealNginx } from './real-nginx.js';
import { startProxyInstall, type ProxyInstall } from './proxy-install.js';

export const CONSOLE = 'console.test';
export const PLAYBACK = 'play.test';
/** The generator's timeouts, shortened from 600 s / 3600 s so a broken one (1 s) shows within a short pause. */
export const TIMEOUT_SECONDS = 30;
export const HOLD_MS = 4_000;

/**
 * A real nginx with the generated sites in front of a real control plane and play-agent: self-signed
 * certificates on loopback, two server names, one manual address for the playback name. The application
 * reaches the proxy the way the test does (same CA, same names).
 */
export interface ProxiedInstall {
  env: ProxyInstall;
  nginx: RealNginx;
  endpoint: { nodeId: string; endpointToken: string };
  options: ProxySitesOptions;
  doctor: DoctorOptions;
  /** The test's client (trusts the CA, resolves the test names to loopback). */
  client(): Dispatcher;
  generated(): string;
  /** Puts sites in force and drops the test's kept-alive connections (an old worker keeps the old sites). */
  reload(sites: string): Promise<void>;
  url(name: string, route: string): URL;
  /** A JSON request through the console site with an admin token. */
  viaConsole(method: 'GET' | 'POST', route: string, token: string, body?: unknown): Promise<ProbeAnswer>;
  stop(): Promise<void>;
}

export async function startProxiedInstall(): Promise<ProxiedInstall> {
  const nginx = await startNginx([CONSOLE, PLAYBACK]);
  const resolve = new Map([
    [CONSOLE, '127.0.0.1'],
    [PLAYBACK, '127.0.0.1'],
  ]);
  const env = await startProxyInstall({ ca: nginx.tls.pem, resolve });
  const endpoint = await env.createEndpoint(PLAYBACK, nginx.httpsPort);
  const tls = { certificate: nginx.tls.certificate, certificateKey: nginx.tls.key };
  const state: ProxiedInstall = {
    env,
    nginx,
    endpoint,
    options: {
      topology: 'standalone',
      console: { serverName: CONSOLE, ...tls, upstream: env.entrance.replace('http://', '') },
      playback: {
        serverName: PLAYBACK,
        ...tls,
        upstream: env.playAgent.replace('http://', ''),
        endpointToken: endpoint.endpointToken,
      },
      httpsPort: nginx.httpsPort,
      httpPort: 0,
      listenAddress: '127.0.0.1',
      consoleTimeoutSeconds: TIMEOUT_SECONDS,
      playbackTimeoutSeconds: TIMEOUT_SECONDS,
    },
    doctor: {
      console: new URL(`https://${CONSOLE}:${nginx.httpsPort}/`),
      playback: new URL(`https://${PLAYBACK}:${nginx.httpsPort}/`),
      token: env.adminToken,
      json: false,
      holdMs: HOLD_MS,
      ca: nginx.tls.pem,
      resolve,
    },
    client: () => dispatcher,
    generated: () => nginxSites(state.options),
    reload: async (sites) => {
      await nginx.load(sites);
      await dispatcher.close();
      dispatcher = probeDispatcher({ ca: nginx.tls.pem, resolve });
    },
    url: (name, route) => new URL(route, `https://${name}:${nginx.httpsPort}`),
    viaConsole: (method, route, token, body) =>
      probe(
        dispatcher,
        state.url(CONSOLE, route),
        { 'x-admin-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        60_000,
        method === 'POST' ? Buffer.from(JSON.stringify(body ?? {})) : undefined,
      ),
    stop: async () => {
      await dispatcher.close();
      await nginx.stop();
      await env.stop();
    },
  };
  let dispatcher = probeDispatcher({ ca: nginx.tls.pem, resolve });
  await nginx.load(state.generated());
  return state;
}
