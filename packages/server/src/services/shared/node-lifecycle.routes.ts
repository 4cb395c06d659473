import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { endpoints, type NodeLifecycleAction } from '@svc/contracts';
import { request as httpRequest } from 'undici';
import type { AppServer } from '../../platform/http/create-server.js';
import { serve } from '../../platform/http/endpoint-route.js';
import { AppError } from '../../platform/http/errors.js';
import type { NodeInstallSettings } from '../../platform/settings.js';

/** Where a lifecycle script comes from and how it runs (handed to the runner). */
export interface LifecycleCommand {
  action: NodeLifecycleAction;
  /** The install kind fetched: upgrade-binary, upgrade-docker or uninstall. */
  kind: 'upgrade-binary' | 'upgrade-docker' | 'uninstall';
  /** The script URL (it carries the node token: never logged, never a command-line argument). */
  url: string;
  /** The environment of the script. */
  env: Record<string, string>;
  logFile: string;
}

/** Starts a lifecycle script (its text already fetched); the default detaches it (see runDetached). */
export type LifecycleRunner = (command: LifecycleCommand, script: string) => void;

/** Fetches the script text from the config service; throws when it cannot. */
export type ScriptFetcher = (url: string) => Promise<string>;

export const fetchScript: ScriptFetcher = async (url) => {
  const response = await httpRequest(url, {
    signal: AbortSignal.timeout(30_000),
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`the config service answered HTTP ${response.statusCode}`);
  return text;
};

export interface NodeLifecycleOptions {
  /** How the node was installed (settings.nodeInstall); undefined: built-in node or dev run, nothing runs. */
  install: NodeInstallSettings | undefined;
  /** The config service's address (SVC_CONFIG_BASE_URL of node.env). */
  configBaseUrl: string;
  /** Folder of the node's data (SVC_DATA_DIR): the log goes beside it when the work directory is not here. */
  dataDir: string;
  run?: LifecycleRunner;
  fetch?: ScriptFetcher;
}

/**
 * The script runs in a bash of its own process group and session, so it outlives this process: the upgrade
 * stops and restarts the node, the uninstall stops it and deletes its work directory. It is fetched before the
 * 202 answer (so an uninstall still gets its script when the control plane deletes the record right after),
 * kept beside the log with mode 0600 (it holds the node token) and deleted when it ends. It waits a second
 * first, so the 202 answer leaves before anything stops.
 */
export function runDetached(command: LifecycleCommand, script: string): void {
  const dir = path.dirname(command.logFile);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `lifecycle-${command.kind}.sh`);
  writeFileSync(file, script, { mode: 0o600 });
  const log = openSync(command.logFile, 'a');
  try {
    const wrapper = [
      'sleep 1',
      `echo "==== $(date -u +%Y-%m-%dT%H:%M:%SZ) ${command.action} (${command.kind}) requested by the control plane"`,
      'bash "$SVC_LIFECYCLE_SCRIPT" </dev/null',
      'code=$?',
      'rm -f "$SVC_LIFECYCLE_SCRIPT"',
      'echo "==== $(date -u +%Y-%m-%dT%H:%M:%SZ) finished with exit code $code"',
      'exit $code',
    ].join('\n');
    spawn('bash', ['-c', wrapper], {
      detached: true,
      cwd: '/',
      env: { ...command.env, SVC_LIFECYCLE_SCRIPT: file },
      stdio: ['ignore', log, log],
    }).unref();
  } finally {
    closeSync(log);
  }
}

/** The lifecycle command of an action for an installed node (exported for the tests). */
export function lifecycleCommand(
  action: NodeLifecycleAction,
  options: Required<Pick<NodeLifecycleOptions, 'configBaseUrl' | 'dataDir'>> & {
    install: NodeInstallSettings;
  },
  env: NodeJS.ProcessEnv = process.env,
): LifecycleCommand {
  const { install } = options;
  const kind =
    action === 'uninstall' ? 'uninstall' : install.form === 'docker' ? 'upgrade-docker' : 'upgrade-binary';
  const base = options.configBaseUrl.replace(/\/+$/, '');
  const ffmpeg = install.ffmpeg && action === 'upgrade' ? '?ffmpeg=true' : '';
  const url = `${base}/api/config/nodes/install/${install.nodeToken}/${kind}${ffmpeg}`;
  // In container form the work directory is the host's path: the log goes beside the data folder instead.
  const logDir = existsSync(install.workDir)
    ? path.join(install.workDir, 'log')
    : path.join(path.dirname(options.dataDir), 'log');
  const inherited: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) inherited[name] = value;
  return {
    action,
    kind,
    url,
    env: {
      ...inherited,
      PATH: env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      SVC_NODE_WORK_DIR: install.workDir,
      SVC_CONFIG_BASE_URL: base,
      NO_COLOR: '1',
    },
    logFile: path.join(logDir, 'lifecycle.log'),
  };
}

/**
 * POST /api/node/lifecycle on a worker node (storage 18084, play-agent 19090), service token only: the control
 * plane asks the node to upgrade or uninstall itself (docs/node-install.md, "Remote upgrade and uninstall").
 * A process that was not installed by an install script (built-in nodes, dev runs) answers 409
 * NODE_NOT_INSTALLED and runs nothing.
 */
export function registerNodeLifecycleRoutes(app: AppServer, options: NodeLifecycleOptions): void {
  const run = options.run ?? runDetached;
  const fetchText = options.fetch ?? fetchScript;
  serve(app, endpoints.shared.runNodeLifecycle, async (request) => {
    const install = options.install;
    if (!install) {
      throw new AppError(
        409,
        'NODE_NOT_INSTALLED',
        'this process was not installed by an install script (no SVC_NODE_TOKEN, SVC_NODE_WORK_DIR, SVC_NODE_INSTALL_FORM): it cannot upgrade or uninstall itself',
      );
    }
    const command = lifecycleCommand(request.body.action, {
      install,
      configBaseUrl: options.configBaseUrl,
      dataDir: options.dataDir,
    });
    let script: string;
    try {
      script = await fetchText(command.url);
    } catch (error) {
      throw new AppError(
        502,
        'NODE_LIFECYCLE_FAILED',
        `the ${command.kind} script could not be fetched from ${options.configBaseUrl}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    try {
      run(command, script);
    } catch (error) {
      throw new AppError(
        500,
        'NODE_LIFECYCLE_FAILED',
        `the ${command.kind} script could not be started: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    request.log.warn(
      { action: command.action, kind: command.kind, log: command.logFile },
      'node lifecycle script started',
    );
    return { action: command.action, accepted: true as const, log: command.logFile };
  });
}
