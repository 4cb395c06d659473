import { createServer } from 'node:net';

/** Asks the kernel for free loopback ports (distinct within one call). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<import('node:net').Server>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen({ host: '127.0.0.1', port: 0 }, () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as import('node:net').AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** Environment variables that move every listener of an install to free ports. */
export interface PortEnv extends Record<string, string> {
  SVC_FRONTEND_PORT: string;
  SVC_USER_PORT: string;
  SVC_MEDIA_PORT: string;
  SVC_STORAGE_PORT: string;
  SVC_CONFIG_PORT: string;
  SVC_GATEWAY_PORT: string;
  SVC_INTERNAL_PORT: string;
  PLAY_AGENT_LISTEN: string;
}

export async function portEnv(): Promise<PortEnv> {
  const [frontend, user, media, storage, config, gateway, internal, playAgent] = await freePorts(8);
  return {
    SVC_FRONTEND_PORT: String(frontend),
    SVC_USER_PORT: String(user),
    SVC_MEDIA_PORT: String(media),
    SVC_STORAGE_PORT: String(storage),
    SVC_CONFIG_PORT: String(config),
    SVC_GATEWAY_PORT: String(gateway),
    SVC_INTERNAL_PORT: String(internal),
    PLAY_AGENT_LISTEN: `127.0.0.1:${playAgent}`,
  };
}

/** The health route of every listener of a standalone install started with these ports. */
export function standaloneHealthUrls(env: PortEnv): string[] {
  const playAgentPort = env.PLAY_AGENT_LISTEN.split(':').pop();
  return [
    `http://127.0.0.1:${env.SVC_FRONTEND_PORT}/health`,
    `http://127.0.0.1:${env.SVC_FRONTEND_PORT}/api/license/status`,
    `http://127.0.0.1:${env.SVC_USER_PORT}/health`,
    `http://127.0.0.1:${env.SVC_MEDIA_PORT}/health`,
    `http://127.0.0.1:${env.SVC_STORAGE_PORT}/api/storage/ping`,
    `http://127.0.0.1:${env.SVC_CONFIG_PORT}/actuator/health`,
    `http://127.0.0.1:${env.SVC_GATEWAY_PORT}/health`,
    `http://127.0.0.1:${env.SVC_INTERNAL_PORT}/health`,
    `http://127.0.0.1:${playAgentPort}/health`,
  ];
}
