import { createServer } from 'node:net';

/*
 * Ports handed out here come from below the kernel's ephemeral range (32768 and up), so neither an
 * outgoing connection nor another `listen(0)` can take one between allocation and use. Each vitest
 * worker owns its own block, and each process walks its block from a random start, probing every
 * candidate, so parallel workers and successive test files do not collide.
 */
const RANGE_START = 20_000;
const BLOCK_SIZE = 3_000;
const BLOCKS = 4;

const workerIndex = (Number(process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? 1) - 1) % BLOCKS;
const blockStart = RANGE_START + Math.max(0, workerIndex) * BLOCK_SIZE;
let cursor = Math.floor(Math.random() * BLOCK_SIZE);
const handedOut = new Set<number>();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

async function nextPort(): Promise<number> {
  for (let tries = 0; tries < BLOCK_SIZE; tries += 1) {
    const port = blockStart + (cursor % BLOCK_SIZE);
    cursor += 1;
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port left in ${blockStart}-${blockStart + BLOCK_SIZE - 1}`);
}

/** Free loopback ports, distinct from every other port this process has been given. */
export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let index = 0; index < count; index += 1) ports.push(await nextPort());
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
  SVC_CLUSTER_PORT: string;
  PLAY_AGENT_LISTEN: string;
}

export async function portEnv(): Promise<PortEnv> {
  const [frontend, user, media, storage, config, gateway, internal, playAgent, cluster] = await freePorts(9);
  return {
    SVC_FRONTEND_PORT: String(frontend),
    SVC_USER_PORT: String(user),
    SVC_MEDIA_PORT: String(media),
    SVC_STORAGE_PORT: String(storage),
    SVC_CONFIG_PORT: String(config),
    SVC_GATEWAY_PORT: String(gateway),
    SVC_INTERNAL_PORT: String(internal),
    SVC_CLUSTER_PORT: String(cluster),
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
