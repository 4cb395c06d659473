import { parseArgs } from 'node:util';
import {
  caddySites,
  defaultCertificate,
  nginxSites,
  PROXY_DEFAULTS,
  ProxySiteError,
  type ProxySitesOptions,
} from '../proxy-sites/index.js';

/** `svc proxy nginx|caddy`: prints the two reverse-proxy sites (docs/reverse-proxy.md). */

const USAGE = [
  'usage: svc proxy nginx|caddy --console-name DOMAIN --playback-name DOMAIN --endpoint-token TOKEN',
  '         [--topology standalone|distributed] [--play-agent-host HOST] [--play-agent-port 19090]',
  '         [--console-upstream 127.0.0.1:18080] [--console-cert PATH --console-key PATH]',
  '         [--playback-cert PATH --playback-key PATH] [--https-port 443] [--http-port 80 (0: none)]',
  '         [--listen ADDRESS] [--console-timeout 600] [--playback-timeout 3600]',
].join('\n');

export class ProxyUsageError extends Error {}

const OPTIONS = {
  topology: { type: 'string', default: 'standalone' },
  'console-name': { type: 'string' },
  'playback-name': { type: 'string' },
  'endpoint-token': { type: 'string' },
  'play-agent-host': { type: 'string' },
  'play-agent-port': { type: 'string', default: String(PROXY_DEFAULTS.playAgentPort) },
  'console-upstream': { type: 'string', default: PROXY_DEFAULTS.consoleUpstream },
  'console-cert': { type: 'string' },
  'console-key': { type: 'string' },
  'playback-cert': { type: 'string' },
  'playback-key': { type: 'string' },
  'https-port': { type: 'string', default: String(PROXY_DEFAULTS.httpsPort) },
  'http-port': { type: 'string', default: String(PROXY_DEFAULTS.httpPort) },
  listen: { type: 'string', default: '' },
  'console-timeout': { type: 'string', default: String(PROXY_DEFAULTS.consoleTimeoutSeconds) },
  'playback-timeout': { type: 'string', default: String(PROXY_DEFAULTS.playbackTimeoutSeconds) },
} as const;

function integer(flag: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new ProxyUsageError(`--${flag} must be a whole number, got '${value}'`);
  return Number(value);
}

function required(flag: string, value: string | undefined): string {
  if (!value) throw new ProxyUsageError(`--${flag} is required`);
  return value;
}

/** The generator's options from the command line; throws ProxyUsageError on a wrong flag. */
export function proxyOptionsFromArgs(args: string[]): ProxySitesOptions {
  let values;
  try {
    ({ values } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new ProxyUsageError((error as Error).message);
  }
  const topology = values.topology;
  if (topology !== 'standalone' && topology !== 'distributed')
    throw new ProxyUsageError('--topology must be standalone or distributed');
  const playAgentHost =
    topology === 'standalone'
      ? (values['play-agent-host'] ?? '127.0.0.1')
      : required('play-agent-host (the play-agent node of a distributed install)', values['play-agent-host']);
  const consoleName = required('console-name', values['console-name']);
  const playbackName = required('playback-name', values['playback-name']);
  const consoleCert = defaultCertificate(consoleName);
  const playbackCert = defaultCertificate(playbackName);
  return {
    topology,
    console: {
      serverName: consoleName,
      certificate: values['console-cert'] ?? consoleCert.certificate,
      certificateKey: values['console-key'] ?? consoleCert.certificateKey,
      upstream: values['console-upstream'],
    },
    playback: {
      serverName: playbackName,
      certificate: values['playback-cert'] ?? playbackCert.certificate,
      certificateKey: values['playback-key'] ?? playbackCert.certificateKey,
      upstream: `${playAgentHost}:${integer('play-agent-port', values['play-agent-port'])}`,
      endpointToken: required('endpoint-token', values['endpoint-token']),
    },
    httpsPort: integer('https-port', values['https-port']),
    httpPort: integer('http-port', values['http-port']),
    listenAddress: values.listen,
    consoleTimeoutSeconds: integer('console-timeout', values['console-timeout']),
    playbackTimeoutSeconds: integer('playback-timeout', values['playback-timeout']),
  };
}

/** Runs `svc proxy`; answers the exit code (0, or 2 for wrong input with one line on stderr). */
export function runProxy(
  args: string[],
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): number {
  const [server, ...rest] = args;
  if (server !== 'nginx' && server !== 'caddy') {
    io.stderr.write(`${USAGE}\n`);
    return 2;
  }
  try {
    const options = proxyOptionsFromArgs(rest);
    io.stdout.write(server === 'nginx' ? nginxSites(options) : caddySites(options));
    return 0;
  } catch (error) {
    if (error instanceof ProxyUsageError || error instanceof ProxySiteError) {
      io.stderr.write(`svc proxy: ${error.message}\n${USAGE}\n`);
      return 2;
    }
    throw error;
  }
}
