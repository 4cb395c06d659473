import { createServer } from 'node:net';
import { accessSync, constants, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SettingsError, type Settings } from '../platform/settings.js';

/** Fails with a SettingsError naming SVC_DATA_DIR when the data folder cannot be created or written. */
export function checkDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true });
    accessSync(dataDir, constants.W_OK);
    const probe = path.join(dataDir, `.write-test-${process.pid}`);
    writeFileSync(probe, 'ok');
    rmSync(probe);
  } catch (error) {
    throw new SettingsError(
      'SVC_DATA_DIR',
      `'${dataDir}' is not a writable folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

function tryListen(host: string, port: number): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

export interface PlannedListener {
  variable: string;
  component: string;
  host: string;
  port: number;
}

/** The standalone listeners and where they bind. */
export function standaloneListeners(settings: Settings): PlannedListener[] {
  const loopback = '127.0.0.1';
  const { ports } = settings;
  return [
    { variable: 'SVC_FRONTEND_PORT', component: 'frontend', host: settings.bindHost, port: ports.frontend },
    { variable: 'SVC_USER_PORT', component: 'user', host: loopback, port: ports.user },
    { variable: 'SVC_MEDIA_PORT', component: 'media', host: loopback, port: ports.media },
    { variable: 'SVC_STORAGE_PORT', component: 'storage', host: loopback, port: ports.storage },
    { variable: 'SVC_CONFIG_PORT', component: 'config', host: loopback, port: ports.config },
    { variable: 'SVC_GATEWAY_PORT', component: 'gateway', host: loopback, port: ports.gateway },
    { variable: 'SVC_INTERNAL_PORT', component: 'internal', host: loopback, port: ports.internal },
    {
      variable: 'PLAY_AGENT_LISTEN',
      component: 'play-agent',
      host: settings.playAgent.listenHost,
      port: ports.playAgent,
    },
  ];
}

/** Refuses to start when a port is taken, before any child process exists. */
export async function checkPortsFree(listeners: readonly PlannedListener[]): Promise<void> {
  for (const listener of listeners) {
    const error = await tryListen(listener.host, listener.port);
    if (!error) continue;
    const reason =
      error.code === 'EADDRINUSE'
        ? 'is already in use'
        : error.code === 'EACCES'
          ? 'needs more privileges'
          : error.code === 'EADDRNOTAVAIL'
            ? 'is not an address of this machine'
            : error.message;
    throw new SettingsError(
      listener.variable,
      `${listener.component} port ${listener.host}:${listener.port} ${reason}`,
    );
  }
}
