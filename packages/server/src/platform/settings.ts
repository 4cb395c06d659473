import type { ClientProtocol } from '@svc/contracts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isIP } from 'node:net';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { envSchema, nodeInstallSchema, type EnvValues } from './settings-env.js';
import { SVC_VERSION } from './version.js';
import { SettingsError } from './settings-error.js';

/** A setting that cannot be used: start-up stops with one line naming the variable. */
export { SettingsError };

export type DbMode = 'bundled' | 'external';

export interface PortSettings {
  frontend: number;
  user: number;
  media: number;
  storage: number;
  config: number;
  gateway: number;
  internal: number;
  /** Cluster licence sync of DISTRIBUTED control instances (18089). */
  cluster: number;
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
  /** DNS-over-HTTPS resolvers of the DRIVE_B CDN preference (PLAY_AGENT_CDN_DOH_URLS). */
  cdnDohUrls: string[];
  /** Extra CA certificates (PEM file) trusted for the CDN and the resolvers (PLAY_AGENT_CDN_CA_FILE). */
  cdnCaFile: string | undefined;
  /** Keep loopback and private CDN addresses from DNS (PLAY_AGENT_CDN_ALLOW_PRIVATE_IPS). */
  cdnAllowPrivateIps: boolean;
  /** Client protocols this node serves (supported_protocols); requests of others get 503. */
  supportedProtocols: ClientProtocol[];
  /** Output limit of each stream in bytes per second; 0 is unlimited. */
  streamRateBytesPerSecond: number;
  /** Period of policy.refresh in milliseconds (SVC_PLAY_AGENT_POLICY_REFRESH_SECONDS, default 30 s). */
  policyRefreshMs: number | undefined;
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
  /** How long the licence lease of the cluster licence sync lasts without renewal (SVC_CLUSTER_LEASE_SECONDS). */
  clusterLeaseSeconds: number;
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

/** The first problem zod found, as the one start-up line naming its variable. */
function firstProblem(error: z.ZodError, variableOf: (key: string) => string = (key) => key): SettingsError {
  const issue = error.issues[0]!;
  return new SettingsError(variableOf(String(issue.path[0])), issue.message);
}

/**
 * Variables the play-agent file may give instead (env first): a problem of a value that came from the file
 * names the file. (The node id and the two base URLs name their variable either way, as they always have.)
 */
/** Public DNS-over-HTTPS resolvers asked when PLAY_AGENT_CDN_DOH_URLS is not set. */
export const DEFAULT_CDN_DOH_URLS = ['https://1.1.1.1/dns-query', 'https://dns.google/dns-query'];

const FROM_FILE: Record<string, keyof PlayAgentFile> = {
  PLAY_AGENT_SUPPORTED_PROTOCOLS: 'supported_protocols',
  PLAY_AGENT_STREAM_RATE_LIMIT_MBPS: 'stream_rate_limit_mbps',
};

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
function nodeInstallSettings(source: Env, env: EnvValues): NodeInstallSettings | undefined {
  if (env.SVC_NODE_TOKEN === undefined || env.SVC_NODE_WORK_DIR === undefined) return undefined;
  if (env.SVC_NODE_INSTALL_FORM === undefined) return undefined;
  const parsed = nodeInstallSchema.safeParse(source);
  if (!parsed.success) throw firstProblem(parsed.error);
  return {
    nodeToken: parsed.data.SVC_NODE_TOKEN!,
    workDir: parsed.data.SVC_NODE_WORK_DIR!,
    form: parsed.data.SVC_NODE_INSTALL_FORM!,
    ffmpeg: env.SVC_NODE_FFMPEG === '1',
  };
}

/** The environment checked by `envSchema`, with the play-agent file's values where the environment has none. */
function readEnvironment(env: Env, file: PlayAgentFile): EnvValues {
  const fromFile = (variable: string, key: keyof PlayAgentFile) => nonEmpty(env[variable]) ?? file[key];
  const parsed = envSchema.safeParse({
    ...env,
    SVC_NODE_ID: fromFile('SVC_NODE_ID', 'node_id'),
    PLAY_AGENT_PUBLIC_BASE_URL: fromFile('PLAY_AGENT_PUBLIC_BASE_URL', 'public_base_url'),
    PLAY_AGENT_CONFIG_BASE_URL: fromFile('PLAY_AGENT_CONFIG_BASE_URL', 'config_base_url'),
    PLAY_AGENT_SUPPORTED_PROTOCOLS: fromFile('PLAY_AGENT_SUPPORTED_PROTOCOLS', 'supported_protocols'),
    PLAY_AGENT_STREAM_RATE_LIMIT_MBPS: fromFile(
      'PLAY_AGENT_STREAM_RATE_LIMIT_MBPS',
      'stream_rate_limit_mbps',
    ),
  });
  if (!parsed.success) {
    throw firstProblem(parsed.error, (key) => (key in FROM_FILE && !env[key] ? 'PLAY_AGENT_CONFIG' : key));
  }
  return parsed.data;
}

/**
 * Reads every setting from the environment (first) and the play-agent config file (second).
 * Throws SettingsError on the first unusable value.
 */
export function loadSettings(source: Env = process.env, cwd = process.cwd()): Settings {
  const file = readPlayAgentFile(source);
  // The variables as the schema checked them (typed, trimmed, blank as unset).
  const env = readEnvironment(source, file);
  const dataDir = path.resolve(cwd, env.SVC_DATA_DIR ?? 'data');

  const dbMode = env.SVC_DB_MODE ?? 'bundled';
  const databaseUrl = env.SVC_DATABASE_URL;
  if (dbMode === 'external') {
    if (databaseUrl === undefined) {
      throw new SettingsError('SVC_DATABASE_URL', 'is required when SVC_DB_MODE=external');
    }
    const url = z.url({ protocol: /^postgres(ql)?$/ }).safeParse(databaseUrl);
    if (!url.success) {
      throw new SettingsError(
        'SVC_DATABASE_URL',
        URL.canParse(databaseUrl)
          ? 'must start with postgres:// or postgresql://'
          : 'is not a postgres:// URL',
      );
    }
  }

  const serviceToken = env.SVC_SERVICE_TOKEN;
  const playAgentBindHost = env.SVC_PLAY_AGENT_BIND_HOST ?? '0.0.0.0';
  const listenRaw = env.PLAY_AGENT_LISTEN ?? file.listen_address;
  const listen = listenRaw
    ? parseListenAddress(
        source.PLAY_AGENT_LISTEN ? 'PLAY_AGENT_LISTEN' : 'PLAY_AGENT_CONFIG',
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
    cluster: port(env, 'SVC_CLUSTER_PORT', 18089),
    playAgent: listen.port,
  };
  const seen = new Map<number, string>();
  for (const [name, value] of Object.entries(ports) as [string, number][]) {
    const other = seen.get(value);
    if (other) throw new SettingsError(portVariable(name), `port ${value} is also used by ${other}`);
    seen.set(value, name);
  }

  const bindHost = env.SVC_BIND_HOST ?? '0.0.0.0';
  const advertiseHost = env.SVC_ADVERTISE_HOST ?? (bindHost === '0.0.0.0' ? '127.0.0.1' : bindHost);
  const configBaseUrl = env.SVC_CONFIG_BASE_URL ?? `http://127.0.0.1:${ports.config}`;
  const embeddedStorageNodeId = env.SVC_EMBEDDED_STORAGE_NODE_ID ?? 'node-local-storage';
  const embeddedPlayAgentNodeId = env.SVC_EMBEDDED_PLAY_AGENT_NODE_ID ?? 'node-local-play-agent';
  const explicitNodeId = env.SVC_NODE_ID;

  const fileServiceToken = file.service_token;
  if (serviceToken === undefined && fileServiceToken !== undefined && fileServiceToken.length < 32) {
    throw new SettingsError('PLAY_AGENT_CONFIG', 'service_token must be at least 32 characters');
  }

  // The project's own image (Dockerfile) runs `svc node storage|play-agent` and already contains Debian's ffmpeg.
  const nodeImage = env.SVC_NODE_IMAGE ?? `svc-media:${SVC_VERSION}`;

  return {
    dataDir,
    nodeInstall: nodeInstallSettings(source, env),
    trustedProxies: env.SVC_TRUSTED_PROXIES ?? ['127.0.0.1/8', '::1'],
    dbMode,
    databaseUrl,
    dbNameSuffix: env.SVC_DB_NAME_SUFFIX ?? '',
    redisUrl: env.SVC_REDIS_URL,
    serviceToken: serviceToken ?? fileServiceToken,
    logLevel: env.SVC_LOG_LEVEL ?? 'info',
    bindHost,
    advertiseHost,
    playAgentBindHost,
    configBaseUrl,
    ports,
    binariesDir: path.resolve(cwd, env.SVC_BINARIES_DIR ?? path.join(dataDir, 'binaries')),
    nodeImage,
    nodeImageFfmpeg: env.SVC_NODE_IMAGE_FFMPEG ?? nodeImage,
    embeddedStorageNodeId,
    embeddedPlayAgentNodeId,
    storageNodeId: explicitNodeId ?? embeddedStorageNodeId,
    storageRegistryToken: env.SVC_REGISTRY_TOKEN,
    publicHost: env.SVC_PUBLIC_HOST,
    webDir: env.SVC_WEB_DIR === undefined ? undefined : path.resolve(cwd, env.SVC_WEB_DIR),
    licensePublicKey: env.SVC_LICENSE_PUBLIC_KEY,
    clusterLeaseSeconds: env.SVC_CLUSTER_LEASE_SECONDS ?? 15,
    playAgent: {
      listenHost: listen.host,
      listenPort: listen.port,
      publicBaseUrl: env.PLAY_AGENT_PUBLIC_BASE_URL,
      configBaseUrl: env.PLAY_AGENT_CONFIG_BASE_URL ?? configBaseUrl,
      nodeId: explicitNodeId ?? embeddedPlayAgentNodeId,
      registryToken: env.PLAY_AGENT_REGISTRY_TOKEN ?? env.SVC_REGISTRY_TOKEN ?? file.registry_token,
      mediaBaseUrl: env.PLAY_AGENT_MEDIA_BASE_URL,
      userBaseUrl: env.PLAY_AGENT_USER_BASE_URL,
      vfsCacheDir: path.resolve(
        cwd,
        env.SVC_PLAY_AGENT_VFS_CACHE_DIR ?? path.join(dataDir, 'play-agent', 'vfs-cache'),
      ),
      imageCacheDir: path.resolve(
        cwd,
        env.SVC_PLAY_AGENT_IMAGE_CACHE_DIR ?? path.join(dataDir, 'play-agent', 'image-cache'),
      ),
      driveARedirectAllowedHosts: env.PLAY_AGENT_DRIVE_A_REDIRECT_ALLOWED_HOSTS,
      driveARedirectUserAgent: env.PLAY_AGENT_DRIVE_A_REDIRECT_USER_AGENT,
      cdnDohUrls: env.PLAY_AGENT_CDN_DOH_URLS ?? DEFAULT_CDN_DOH_URLS,
      cdnCaFile: env.PLAY_AGENT_CDN_CA_FILE,
      cdnAllowPrivateIps: ['true', '1'].includes(env.PLAY_AGENT_CDN_ALLOW_PRIVATE_IPS ?? ''),
      supportedProtocols: env.PLAY_AGENT_SUPPORTED_PROTOCOLS ?? ['proto_a'],
      streamRateBytesPerSecond: env.PLAY_AGENT_STREAM_RATE_LIMIT_MBPS ?? 0,
      policyRefreshMs:
        env.SVC_PLAY_AGENT_POLICY_REFRESH_SECONDS === undefined
          ? undefined
          : env.SVC_PLAY_AGENT_POLICY_REFRESH_SECONDS * 1000,
    },
  };
}

/** A port variable, or its default. */
function port(env: EnvValues, variable: PortVariable, fallback: number): number {
  return env[variable] ?? fallback;
}
type PortVariable = { [K in keyof EnvValues]-?: K extends `SVC_${string}_PORT` ? K : never }[keyof EnvValues];

function portVariable(name: string): string {
  return name === 'playAgent' ? 'PLAY_AGENT_LISTEN' : `SVC_${name.toUpperCase()}_PORT`;
}
