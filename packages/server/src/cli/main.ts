import './compile-cache.js';
import { fileURLToPath } from 'node:url';
import { SettingsError } from '../platform/settings-error.js';
import { SVC_VERSION } from '../platform/version.js';
import { DISTRIBUTED_ROLES, NODE_ROLES, PROCESS_ROLE_NAMES, type ProcessRole } from '../runtime/roles.js';

const HELP = `svc ${SVC_VERSION}: self-hosted media management service

Usage:
  svc standalone                 start the STANDALONE edition (control, storage node, play-agent)
  svc role control|user|media|edge
                                 run one control role of a DISTRIBUTED deployment
  svc node storage|play-agent    run a worker node
  svc migrate [database...]      apply pending migrations (svc_user svc_media svc_config yiyi_storage)
  svc migrate distributed --target-url URL --backup-dir DIR [--target-suffix S] [--config-url URL] [--check]
                                 standalone -> distributed: back up, move the four databases, print the next steps
  svc migrate distributed-rollback --target-url URL [--target-suffix S] --confirm
                                 drop the copies a failed move left on the control PostgreSQL
  svc migrate backup --backup-dir DIR | restore --backup-dir DIR --confirm
                                 full backup of a stopped deployment / put one back
  svc migrate legacy-precheck --legacy-url URL --settings-file FILE
                                 legacy multi-container -> standalone: read-only pre-check and impact report
  svc migrate legacy-promote --legacy-url URL --storage-node ID --play-agent-node ID --backup-dir DIR
                             --settings-file FILE [--legacy-storage-data DIR] [--legacy-vfs-cache DIR] --confirm
                                 import the legacy install into this standalone, keeping the chosen node ids
  svc admin create --username NAME [--display-name NAME] [--password-stdin]
                                 create an administrator (asks for the password, or reads it from stdin)
  svc license keygen|issue|code|upgrade ...
                                 publisher tool: key pair, signed lease, one-time code, edition upgrade
  svc proxy nginx|caddy --console-name DOMAIN --playback-name DOMAIN --endpoint-token TOKEN ...
                                 print the console and playback reverse-proxy sites
  svc doctor --console URL [--playback URL] --token ADMIN_TOKEN [--json]
                                 check a running deployment through its proxy
  svc --help | --version

Settings come from environment variables (see .env.example); a play-agent also reads the
file named by PLAY_AGENT_CONFIG. The data folder is SVC_DATA_DIR (default ./data).
`;

function fail(message: string, code: number): never {
  process.stderr.write(`svc: ${message}\n`);
  process.exit(code);
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const entry = fileURLToPath(import.meta.url);
  switch (command) {
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(HELP);
      return;
    case '--version':
      process.stdout.write(`${SVC_VERSION}\n`);
      return;
    case 'standalone':
      return (await import('./standalone.js')).runStandalone(entry);
    case 'role': {
      const role = rest[0];
      if (!role || !(DISTRIBUTED_ROLES as readonly string[]).includes(role)) {
        fail(`role must be one of ${DISTRIBUTED_ROLES.join(', ')}`, 2);
      }
      return (await import('../runtime/process-main.js')).runProcess(role as ProcessRole, 'distributed');
    }
    case 'node': {
      const role = rest[0];
      if (!role || !(NODE_ROLES as readonly string[]).includes(role))
        fail(`node must be one of ${NODE_ROLES.join(', ')}`, 2);
      return (await import('../runtime/process-main.js')).runProcess(role as ProcessRole, 'distributed');
    }
    case 'child': {
      // Started by the standalone supervisor over IPC; not meant to be typed by hand.
      const role = rest[0];
      if (!role || !(PROCESS_ROLE_NAMES as string[]).includes(role))
        fail(`unknown child role ${role ?? ''}`, 2);
      return (await import('../runtime/process-main.js')).runProcess(role as ProcessRole, 'standalone');
    }
    case 'migrate':
      return (await import('./migrate.js')).runMigrate(rest);
    case 'admin':
      return (await import('./admin.js')).runAdmin(rest);
    case 'license':
      process.exitCode = await (await import('./license.js')).runLicense(rest);
      return;
    case 'proxy':
      process.exitCode = (await import('./proxy.js')).runProxy(rest, process);
      return;
    case 'doctor':
      process.exitCode = await (await import('./doctor.js')).runDoctor(rest, process);
      return;
    default:
      fail(`unknown command '${command}'. Run svc --help.`, 2);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  fail(message, error instanceof SettingsError ? 2 : 1);
});
