import path from 'node:path';
import { createLogger } from '../platform/logger.js';
import { loadSettings } from '../platform/settings.js';
import { resolveServiceToken } from '../platform/service-token.js';
import { checkDataDir, checkPortsFree, standaloneListeners } from '../runtime/preflight.js';
import { claimSupervisorLock, Supervisor } from '../runtime/supervisor.js';

/** `svc standalone`: checks the settings, then supervises the three processes of the STANDALONE edition. */
export async function runStandalone(entry: string): Promise<void> {
  const settings = loadSettings();
  checkDataDir(settings.dataDir);
  const runDir = path.join(settings.dataDir, 'run');
  const releaseLock = claimSupervisorLock(runDir);
  const logger = createLogger({ level: settings.logLevel, component: 'supervisor' });
  let supervisor: Supervisor | undefined;
  try {
    await checkPortsFree(standaloneListeners(settings));
    const serviceToken = resolveServiceToken(settings.dataDir, settings.serviceToken);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SVC_DATA_DIR: settings.dataDir,
      SVC_SERVICE_TOKEN: serviceToken,
    };
    // The built-in nodes use the embedded ids; SVC_NODE_ID is for separately installed nodes.
    delete env.SVC_NODE_ID;
    supervisor = new Supervisor({
      logger,
      entry,
      childArgs: (role) => ['child', role],
      env,
      runDir,
      // All three start together: nodes retry their registration until the config service answers,
      // and the storage node's database start overlaps the control process's on the second core.
      groups: [
        [
          { name: 'control', role: 'standalone-control' },
          { name: 'node-local-storage', role: 'storage' },
          { name: 'node-local-play-agent', role: 'play-agent' },
        ],
      ],
    });
    await supervisor.start();
  } catch (error) {
    releaseLock();
    throw error;
  }
  logger.info(
    { console: `http://localhost:${settings.ports.frontend}`, playAgent: settings.ports.playAgent },
    'standalone edition is up',
  );

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping all processes');
    void supervisor.stop().finally(() => {
      releaseLock();
      logger.info('all processes stopped');
      logger.flush();
      process.exit(0);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
