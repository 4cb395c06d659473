import { CLIENT_PROTOCOLS, type ClientProtocol } from '@svc/contracts';
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isIP } from 'node:net';
import { parse as parseYaml } from 'yaml';
import { isValidProxyEntry } from './http/client-ip.js';
import { SVC_VERSION } from './version.js';

/** A setting that cannot be used: start-up stops with one line naming the variable. */
export class SettingsError extends Error {
  constructor(
    readonly variable: string,
    readonly problem: string,
  ) {
    super(`${variable}: ${problem}`);
  }
}

export type DbMode = 'bundled' | 'external';

export interface PortSettings {
  frontend: number;
  user: number;
  media: number;
  storage: number;
  config: number;
  gateway: number;
  internal: number;
  playAgent: number;
}

export interface PlayAgentSettings {
  listenHost: string;
  listenPort: number;
  publicBaseUrl: string | undefined;
  configBaseUrl: string;
  nodeId: string;
  registryToken: string | undefined;
  mediaBaseUrl: string | undefined;
  userBaseUrl: string | undefined;
  vfsCacheDir: string;
  imageCacheDir: string;
  driveARedirectAllowedHosts: string[];
  driveARedirectUserAgent: string | undefined;
  /** Client protocols this node serves (supported_protocols); requests of others get 503. */
  supportedProtocols: ClientProtocol[];
  /** Output limit of each stream in bytes per second; 0 is unlimited. */
  streamRateBytesPerSecond: number;
}

/**
 * How a worker node was installed by its install script (docs/node-install.md): what the node needs to run its
 * own upgrade or uninstall script when the control plane asks it to (POST /api/node/lifecycle).
 */
export interface NodeInstallSettings {
  /** The node token of the install URL (SVC_NODE_TOKEN). */
  nodeToken: string;
  /** The node's work directory on its machine (SVC_NODE_WORK_DIR). */
  workDir: string;
  /** binary (upgrade-binary) or docker (upgrade-docker) (SVC_NODE_INSTALL_FORM). */
  form: 'binary' | 'docker';
  /** Installed with ?ffmpeg=true (SVC_NODE_FFMPEG=1): upgrades keep it. */
  ffmpeg: boolean;
}

export interface Settings {
  dataDir: string;
  dbMode: DbMode;
  databaseUrl: string | undefined;
  dbNameSuffix: string;
  redisUrl: string | undefined;
  /** Explicit service token; when absent in standalone it is generated and kept in the data folder. */
  serviceToken: string | undefined;
  logLevel: string;
  /** Bind address of the control listeners (18082–18086) in distributed roles; standalone forces loopback. */
  bindHost: string;
  /** Host other machines use to reach this role's listeners; defaults to the bind host or loopback. */
  advertiseHost: string;
  playAgentBindHost: string;
  configBaseUrl: string;
  ports: PortSettings;
  binariesDir: string;
  /** Container image of worker nodes installed in container form (SVC_NODE_IMAGE), with its tag. */
  nodeImage: string;
  /** The image variant with ffmpeg for `?ffmpeg=true` (SVC_NODE_IMAGE_FFMPEG; default: nodeImage). */
  nodeImageFfmpeg: string;
  embeddedStorageNodeId: string;
  embeddedPlayAgentNodeId: string;
  /** Id this process uses when it runs a storage node (SVC_NODE_ID, else the embedded id). */
  storageNodeId: string;
  /**
   * Registry token of a separately installed storage node (SVC_REGISTRY_TOKEN), sent by its heartbeat instead
   * of the service token; the play-agent reads playAgent.registryToken, where PLAY_AGENT_REGISTRY_TOKEN wins.
   */
  storageRegistryToken: string | undefined;
  publicHost: string | undefined;
  /** Proxies whose X-Forwarded-For the gateway believes (IPs or CIDR ranges). */
  trustedProxies: string[];
  /** Folder of the built web app; found next to the program when unset. */
  webDir: string | undefined;
  playAgent: PlayAgentSettings;
  /**
   * The licence publisher's Ed25519 public key (SVC_LICENSE_PUBLIC_KEY) as base64 SPKI DER; unset means
   * no licence can be activated (docs/licences.md).
   */
  licensePublicKey: string | undefined;
  /** Set on worker nodes installed by an install script; undefined elsewhere (built-in nodes, dev runs). */
  nodeInstall: NodeInstallSettings | undefined;
}

type Env = Record<string, string | undefined>;

const PLAY_AGENT_FILE_KEYS = [
  'listen_address',
  'public_base_url',
  'service_name',
  'config_base_url',
  'node_id',
  'service_token',
  'registry_token',
  'supported_protocols',
  'stream_rate_limit_mbps',
] as const;
type PlayAgentFile = Partial<Record<(typeof PLAY_AGENT_FILE_KEYS)[number], string>>;

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function port(env: Env, variable: string, fallback: number): number {
  const raw = nonEmpty(env[variable]);
  if (raw === undefined) return fallback;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) {
    throw new SettingsError(variable, `'${raw}' is not a TCP port (1-65535)`);
  }
  return Number(raw);
}

function host(env: Env, variable: string, fallback: string): string {
  const raw = nonEmpty(env[variable]) ?? fallback;
  if (isIP(raw) === 0 && !/^[A-Za-z0-9.-]{1,253}$/.test(raw)) {
    throw new SettingsError(variable, `'${raw}' is not an IP address or host name`);
  }
  return raw;
}

function httpUrl(variable: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SettingsError(variable, `'${raw}' is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SettingsError(variable, `'${raw}' must start with http:// or https://`);
  }
  return raw.replace(/\/+$/, '');
}

/** PEM (literal `\n` accepted, as in an environment file) or one-line base64 SPKI DER → base64 SPKI DER. */
function licensePublicKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const variable = 'SVC_LICENSE_PUBLIC_KEY';
  const text = raw.replace(/\\n/g, '\n');
  let key;
  try {
    key = text.includes('-----BEGIN')
      ? createPublicKey(text)
      : /^[A-Za-z0-9+/]+={0,2}$/.test(text)
        ? createPublicKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'spki' })
        : undefined;
  } catch {
    key = undefined;
  }
  if (key === undefined) {
    throw new SettingsError(variable, 'is not a PEM public key or the base64 of an SPKI DER public key');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new SettingsError(variable, 'must be an Ed25519 public key');
  return key.export({ format: 'der', type: 'spki' }).toString('base64');
}

/** A container image reference such as registry.example.com:5000/svc-media:0.1.0 (no shell characters). */
function imageReference(variable: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!/^[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}$/.test(raw)) {
    throw new SettingsError(variable, `'${raw}' is not a container image reference`);
  }
  return raw;
}

function nodeId(variable: string, raw: string): string {
  if (!/^node-[A-Za-z0-9_-]{3,60}$/.test(raw)) {
    throw new SettingsError(variable, `'${raw}' does not match node-[A-Za-z0-9_-]{3,60}`);
  }
  return raw;
}

/** Parses ':19090', '19090', '0.0.0.0:19090' or '[::1]:19090'. */
export function parseListenAddress(
  variable: string,
  raw: string,
  defaultHost: string,
): { host: string; port: number } {
  const value = raw.trim();
  const bracketed = /^\[([0-9A-Fa-f:.]+)\]:(\d{1,5})$/.exec(value);
  const plain = /^([^:[\]]*):(\d{1,5})$/.exec(value);
  const portOnly = /^(\d{1,5})$/.exec(value);
  const [listenHost, portText] = bracketed
    ? [bracketed[1]!, bracketed[2]!]
    : plain
      ? [plain[1] || defaultHost, plain[2]!]
      : portOnly
        ? [defaultHost, portOnly[1]!]
        : [undefined, undefined];
  const portNumber = Number(portText);
  if (listenHost === undefined || !(portNumber >= 1 && portNumber <= 65535)) {
    throw new SettingsError(variable, `'${raw}' is not a listen address such as ':19090' or '0.0.0.0:19090'`);
  }
  if (isIP(listenHost) === 0 && listenHost !== 'localhost') {
    throw new SettingsError(variable, `'${listenHost}' is not an IP address`);
  }
  return { host: listenHost, port: portNumber };
}

function readPlayAgentFile(env: Env): PlayAgentFile {
  const file = nonEmpty(env.PLAY_AGENT_CONFIG);
  if (file === undefined) return {};
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new SettingsError('PLAY_AGENT_CONFIG', `cannot read '${file}': ${(error as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new SettingsError('PLAY_AGENT_CONFIG', `'${file}' must hold a mapping of keys to values`);
  }
  const result: PlayAgentFile = {};
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (!(PLAY_AGENT_FILE_KEYS as readonly string[]).includes(key)) {
      throw new SettingsError('PLAY_AGENT_CONFIG', `unknown key '${key}' in '${file}'`);
    }
    if (key === 'supported_protocols' && Array.isArray(value) && value.every((v) => typeof v === 'string')) {
      result.supported_protocols = value.join(',');
      continue;
    }
    if (typeof value !== 'string' && typeof value !== 'number') {
      throw new SettingsError('PLAY_AGENT_CONFIG', `key '${key}' in '${file}' must be a string`);
    }
    result[key as keyof PlayAgentFile] = String(value);
  }
  if (result.service_name !== undefined && result.service_name !== 'svc-play-agent') {
    throw new SettingsError('PLAY_AGENT_CONFIG', `service_name must be 'svc-play-agent'`);
  }
  return result;
}

/** SVC_NODE_TOKEN, SVC_NODE_WORK_DIR and SVC_NODE_INSTALL_FORM together, or none of them (then undefined). */
function nodeInstallSettings(env: Env): NodeInstallSettings | undefined {
  const nodeToken = nonEmpty(env.SVC_NODE_TOKEN);
  const workDir = nonEmpty(env.SVC_NODE_WORK_DIR);
  const form = nonEmpty(env.SVC_NODE_INSTALL_FORM);
  if (nodeToken === undefined || workDir === undefined || form === undefined) return undefined;
  if (!/^[A-Za-z0-9_-]{8,200}$/.test(nodeToken)) {
    throw new SettingsError('SVC_NODE_TOKEN', 'is not a node token');
  }
  if (!path.isAbsolute(workDir)) throw new SettingsError('SVC_NODE_WORK_DIR', `'${workDir}' is not absolute`);
  if (form !== 'binary' && form !== 'docker') {
    throw new SettingsError('SVC_NODE_INSTALL_FORM', `'${form}' is not one of binary, docker`);
  }
  return { nodeToken, workDir, form, ffmpeg: nonEmpty(env.SVC_NODE_FFMPEG) === '1' };
}

/**
 * Reads every setting from the environment (first) and the play-agent config file (second).
 * Throws SettingsError on the first unusable value.
 */
export function loadSettings(env: Env = process.env, cwd = process.cwd()): Settings {
  const dataDir = path.resolve(cwd, nonEmpty(env.SVC_DATA_DIR) ?? 'data');

  const dbModeRaw = nonEmpty(env.SVC_DB_MODE) ?? 'bundled';
  if (dbModeRaw !== 'bundled' && dbModeRaw !== 'external') {
    throw new SettingsError('SVC_DB_MODE', `'${dbModeRaw}' is not one of bundled, external`);
  }
  const databaseUrl = nonEmpty(env.SVC_DATABASE_URL);
  if (dbModeRaw === 'external') {
    if (databaseUrl === undefined) {
      throw new SettingsError('SVC_DATABASE_URL', 'is required when SVC_DB_MODE=external');
    }
    let parsed: URL;
    try {
      parsed = new URL(databaseUrl);
    } catch {
      throw new SettingsError('SVC_DATABASE_URL', 'is not a postgres:// URL');
    }
    if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
      throw new SettingsError('SVC_DATABASE_URL', 'must start with postgres:// or postgresql://');
    }
  }
  const dbNameSuffix = nonEmpty(env.SVC_DB_NAME_SUFFIX) ?? '';
  if (!/^[a-z0-9_]{0,30}$/.test(dbNameSuffix)) {
    throw new SettingsError('SVC_DB_NAME_SUFFIX', 'may hold only a-z, 0-9 and _ (at most 30)');
  }

  const redisUrl = nonEmpty(env.SVC_REDIS_URL);
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new SettingsError('SVC_REDIS_URL', 'must start with redis:// or rediss://');
  }

  const serviceToken = nonEmpty(env.SVC_SERVICE_TOKEN);
  if (serviceToken !== undefined && serviceToken.length < 32) {
    throw new SettingsError('SVC_SERVICE_TOKEN', 'must be at least 32 characters');
  }

  const logLevel = nonEmpty(env.SVC_LOG_LEVEL) ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new SettingsError('SVC_LOG_LEVEL', `'${logLevel}' is not a log level`);
  }

  const file = readPlayAgentFile(env);
  const listenRaw = nonEmpty(env.PLAY_AGENT_LISTEN) ?? file.listen_address;
  const playAgentBindHost = host(env, 'SVC_PLAY_AGENT_BIND_HOST', '0.0.0.0');
  const listen = listenRaw
    ? parseListenAddress(
        env.PLAY_AGENT_LISTEN ? 'PLAY_AGENT_LISTEN' : 'PLAY_AGENT_CONFIG',
        listenRaw,
        playAgentBindHost,
      )
    : { host: playAgentBindHost, port: 19090 };

  const ports: PortSettings = {
    frontend: port(env, 'SVC_FRONTEND_PORT', 18080),
    user: port(env, 'SVC_USER_PORT', 18082),
    media: port(env, 'SVC_MEDIA_PORT', 18083),
    storage: port(env, 'SVC_STORAGE_PORT', 18084),
    config: port(env, 'SVC_CONFIG_PORT', 18085),
    gateway: port(env, 'SVC_GATEWAY_PORT', 18086),
    internal: port(env, 'SVC_INTERNAL_PORT', 18088),
    playAgent: listen.port,
  };
  const seen = new Map<number, string>();
  for (const [name, value] of Object.entries(ports) as [string, number][]) {
    const other = seen.get(value);
    if (other) throw new SettingsError(portVariable(name), `port ${value} is also used by ${other}`);
    seen.set(value, name);
  }

  const bindHost = host(env, 'SVC_BIND_HOST', '0.0.0.0');
  const advertiseHost = host(env, 'SVC_ADVERTISE_HOST', bindHost === '0.0.0.0' ? '127.0.0.1' : bindHost);
  const configBaseUrl =
    httpUrl('SVC_CONFIG_BASE_URL', nonEmpty(env.SVC_CONFIG_BASE_URL)) ?? `http://127.0.0.1:${ports.config}`;

  const embeddedStorageNodeId = nodeId(
    'SVC_EMBEDDED_STORAGE_NODE_ID',
    nonEmpty(env.SVC_EMBEDDED_STORAGE_NODE_ID) ?? 'node-local-storage',
  );
  const embeddedPlayAgentNodeId = nodeId(
    'SVC_EMBEDDED_PLAY_AGENT_NODE_ID',
    nonEmpty(env.SVC_EMBEDDED_PLAY_AGENT_NODE_ID) ?? 'node-local-play-agent',
  );
  const nodeIdRaw = nonEmpty(env.SVC_NODE_ID) ?? file.node_id;
  const explicitNodeId = nodeIdRaw ? nodeId('SVC_NODE_ID', nodeIdRaw) : undefined;
  const playAgentNodeId = explicitNodeId ?? embeddedPlayAgentNodeId;

  const publicHost = nonEmpty(env.SVC_PUBLIC_HOST);
  if (publicHost !== undefined && !/^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$/.test(publicHost)) {
    throw new SettingsError('SVC_PUBLIC_HOST', `'${publicHost}' is not a host name or IP address`);
  }

  const fileServiceToken = file.service_token;
  if (serviceToken === undefined && fileServiceToken !== undefined && fileServiceToken.length < 32) {
    throw new SettingsError('PLAY_AGENT_CONFIG', 'service_token must be at least 32 characters');
  }

  // The project's own image (Dockerfile) runs `svc node storage|play-agent` and already contains Debian's ffmpeg.
  const nodeImage =
    imageReference('SVC_NODE_IMAGE', nonEmpty(env.SVC_NODE_IMAGE)) ?? `svc-media:${SVC_VERSION}`;

  const trustedProxies = (nonEmpty(env.SVC_TRUSTED_PROXIES) ?? '127.0.0.1/8,::1')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of trustedProxies) {
    if (!isValidProxyEntry(entry)) {
      throw new SettingsError('SVC_TRUSTED_PROXIES', `'${entry}' is not an IP address or CIDR range`);
    }
  }

  return {
    dataDir,
    nodeInstall: nodeInstallSettings(env),
    trustedProxies,
    dbMode: dbModeRaw,
    databaseUrl,
    dbNameSuffix,
    redisUrl,
    serviceToken: serviceToken ?? fileServiceToken,
    logLevel,
    bindHost,
    advertiseHost,
    playAgentBindHost,
    configBaseUrl,
    ports,
    binariesDir: path.resolve(cwd, nonEmpty(env.SVC_BINARIES_DIR) ?? path.join(dataDir, 'binaries')),
    nodeImage,
    nodeImageFfmpeg:
      imageReference('SVC_NODE_IMAGE_FFMPEG', nonEmpty(env.SVC_NODE_IMAGE_FFMPEG)) ?? nodeImage,
    embeddedStorageNodeId,
    embeddedPlayAgentNodeId,
    storageNodeId: explicitNodeId ?? embeddedStorageNodeId,
    storageRegistryToken: nonEmpty(env.SVC_REGISTRY_TOKEN),
    publicHost,
    webDir: nonEmpty(env.SVC_WEB_DIR) ? path.resolve(cwd, nonEmpty(env.SVC_WEB_DIR)!) : undefined,
    licensePublicKey: licensePublicKey(nonEmpty(env.SVC_LICENSE_PUBLIC_KEY)),
    playAgent: {
      listenHost: listen.host,
      listenPort: listen.port,
      publicBaseUrl: httpUrl(
        'PLAY_AGENT_PUBLIC_BASE_URL',
        nonEmpty(env.PLAY_AGENT_PUBLIC_BASE_URL) ?? file.public_base_url,
      ),
      configBaseUrl:
        httpUrl(
          'PLAY_AGENT_CONFIG_BASE_URL',
          nonEmpty(env.PLAY_AGENT_CONFIG_BASE_URL) ?? file.config_base_url,
        ) ?? configBaseUrl,
      nodeId: playAgentNodeId,
      registryToken:
        nonEmpty(env.PLAY_AGENT_REGISTRY_TOKEN) ?? nonEmpty(env.SVC_REGISTRY_TOKEN) ?? file.registry_token,
      mediaBaseUrl: httpUrl('PLAY_AGENT_MEDIA_BASE_URL', nonEmpty(env.PLAY_AGENT_MEDIA_BASE_URL)),
      userBaseUrl: httpUrl('PLAY_AGENT_USER_BASE_URL', nonEmpty(env.PLAY_AGENT_USER_BASE_URL)),
      vfsCacheDir: path.resolve(
        cwd,
        nonEmpty(env.SVC_PLAY_AGENT_VFS_CACHE_DIR) ?? path.join(dataDir, 'play-agent', 'vfs-cache'),
      ),
      imageCacheDir: path.resolve(
        cwd,
        nonEmpty(env.SVC_PLAY_AGENT_IMAGE_CACHE_DIR) ?? path.join(dataDir, 'play-agent', 'image-cache'),
      ),
      driveARedirectAllowedHosts: (env.PLAY_AGENT_DRIVE_A_REDIRECT_ALLOWED_HOSTS ?? '')
        .split(',')
        .map((entry) => entry.trim().toLowerCase())
        .filter(Boolean),
      driveARedirectUserAgent: nonEmpty(env.PLAY_AGENT_DRIVE_A_REDIRECT_USER_AGENT),
      supportedProtocols: supportedProtocols(
        env.PLAY_AGENT_SUPPORTED_PROTOCOLS ? 'PLAY_AGENT_SUPPORTED_PROTOCOLS' : 'PLAY_AGENT_CONFIG',
        nonEmpty(env.PLAY_AGENT_SUPPORTED_PROTOCOLS) ?? file.supported_protocols,
      ),
      streamRateBytesPerSecond: streamRate(
        env.PLAY_AGENT_STREAM_RATE_LIMIT_MBPS ? 'PLAY_AGENT_STREAM_RATE_LIMIT_MBPS' : 'PLAY_AGENT_CONFIG',
        nonEmpty(env.PLAY_AGENT_STREAM_RATE_LIMIT_MBPS) ?? file.stream_rate_limit_mbps,
      ),
    },
  };
}

function supportedProtocols(variable: string, raw: string | undefined): ClientProtocol[] {
  if (raw === undefined) return ['proto_a'];
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const known = new Map(CLIENT_PROTOCOLS.map((name) => [name.toLowerCase(), name]));
  const result: ClientProtocol[] = [];
  for (const name of names) {
    const protocol = known.get(name.toLowerCase());
    if (!protocol) {
      throw new SettingsError(variable, `unknown protocol '${name}' (known: ${CLIENT_PROTOCOLS.join(', ')})`);
    }
    if (!result.includes(protocol)) result.push(protocol);
  }
  if (result.length === 0) throw new SettingsError(variable, 'name at least one protocol');
  return result;
}

/** Megabits per second (decimal, as network rates are counted) to bytes per second. */
function streamRate(variable: string, raw: string | undefined): number {
  if (raw === undefined) return 0;
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new SettingsError(variable, `'${raw}' is not a rate in Mbps`);
  const mbps = Number(raw);
  if (mbps > 100_000) throw new SettingsError(variable, 'at most 100000 Mbps');
  return Math.round((mbps * 1_000_000) / 8);
}

function portVariable(name: string): string {
  return name === 'playAgent' ? 'PLAY_AGENT_LISTEN' : `SVC_${name.toUpperCase()}_PORT`;
}
