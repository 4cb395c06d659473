import { CLIENT_PROTOCOLS, type ClientProtocol } from '@svc/contracts/client-protocols';
import { createPublicKey } from 'node:crypto';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { isValidProxyEntry } from './http/client-ip.js';

/**
 * The environment variables as one zod schema: each variable's own format, with the problem sentence the
 * start-up line shows after the variable's name. A blank value counts as unset. Rules that join several
 * variables (or the play-agent file) stay in settings.ts.
 */

/** A variable's text: trimmed, blank is absent. */
const text = z
  .string()
  .optional()
  .transform((value) => value?.trim() || undefined);

/** A variable that must match `valid`; `problem` says why the raw value does not. */
const checked = (valid: (raw: string) => boolean, problem: (raw: string) => string) =>
  text.pipe(
    z
      .string()
      .refine(valid, { error: (issue) => problem(String(issue.input)) })
      .optional(),
  );

/** A variable converted by `convert`, which answers the value or `{ problem }`. */
const converted = <T>(convert: (raw: string) => T | { problem: string }) =>
  text.transform((raw, context): T | undefined => {
    if (raw === undefined) return undefined;
    const result = convert(raw);
    if (typeof result === 'object' && result !== null && 'problem' in result) {
      context.addIssue({ code: 'custom', message: result.problem });
      return z.NEVER;
    }
    return result;
  });

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  text.pipe(
    z
      .enum(values, { error: (issue) => `'${String(issue.input)}' is not one of ${values.join(', ')}` })
      .optional(),
  );

const isPort = (raw: string) => /^\d{1,5}$/.test(raw) && Number(raw) >= 1 && Number(raw) <= 65535;
const port = converted((raw) =>
  isPort(raw) ? Number(raw) : { problem: `'${raw}' is not a TCP port (1-65535)` },
);

export const isHost = (raw: string) => isIP(raw) !== 0 || /^[A-Za-z0-9.-]{1,253}$/.test(raw);
const host = checked(isHost, (raw) => `'${raw}' is not an IP address or host name`);

/** An http(s) URL without its trailing slashes. */
export function httpUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `'${raw}' is not a URL`;
  }
  return url.protocol === 'http:' || url.protocol === 'https:'
    ? undefined
    : `'${raw}' must start with http:// or https://`;
}
const httpUrl = converted((raw) => {
  const problem = httpUrlProblem(raw);
  return problem === undefined ? raw.replace(/\/+$/, '') : { problem };
});

export const NODE_ID_PATTERN = /^node-[A-Za-z0-9_-]{3,60}$/;
export const nodeIdProblem = (raw: string) => `'${raw}' does not match node-[A-Za-z0-9_-]{3,60}`;
const nodeId = checked((raw) => NODE_ID_PATTERN.test(raw), nodeIdProblem);

/** A container image reference such as registry.example.com:5000/svc-media:0.1.0 (no shell characters). */
const imageReference = checked(
  (raw) => /^[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}$/.test(raw),
  (raw) => `'${raw}' is not a container image reference`,
);

/** PEM (literal `\n` accepted, as in an environment file) or one-line base64 SPKI DER → base64 SPKI DER. */
const licensePublicKey = converted((raw) => {
  const pem = raw.replace(/\\n/g, '\n');
  let key;
  try {
    key = pem.includes('-----BEGIN')
      ? createPublicKey(pem)
      : /^[A-Za-z0-9+/]+={0,2}$/.test(pem)
        ? createPublicKey({ key: Buffer.from(pem, 'base64'), format: 'der', type: 'spki' })
        : undefined;
  } catch {
    key = undefined;
  }
  if (key === undefined)
    return { problem: 'is not a PEM public key or the base64 of an SPKI DER public key' };
  if (key.asymmetricKeyType !== 'ed25519') return { problem: 'must be an Ed25519 public key' };
  return key.export({ format: 'der', type: 'spki' }).toString('base64');
});

/** Client protocol names, comma-separated, any letter case, each once. */
export function parseProtocols(raw: string): ClientProtocol[] | { problem: string } {
  const known = new Map(CLIENT_PROTOCOLS.map((name) => [name.toLowerCase(), name]));
  const result: ClientProtocol[] = [];
  for (const name of raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)) {
    const protocol = known.get(name.toLowerCase());
    if (!protocol) return { problem: `unknown protocol '${name}' (known: ${CLIENT_PROTOCOLS.join(', ')})` };
    if (!result.includes(protocol)) result.push(protocol);
  }
  return result.length === 0 ? { problem: 'name at least one protocol' } : result;
}

/** Megabits per second (decimal, as network rates are counted) to bytes per second. */
export function parseStreamRate(raw: string): number | { problem: string } {
  if (!/^\d+(\.\d+)?$/.test(raw)) return { problem: `'${raw}' is not a rate in Mbps` };
  const mbps = Number(raw);
  if (mbps > 100_000) return { problem: 'at most 100000 Mbps' };
  return Math.round((mbps * 1_000_000) / 8);
}

const list = (raw: string) =>
  raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);

/** Every variable; the order is the order in which problems are reported (the first one stops start-up). */
export const envSchema = z.object({
  SVC_DATA_DIR: text,
  SVC_DB_MODE: oneOf(['bundled', 'external']),
  SVC_DATABASE_URL: text,
  SVC_DB_NAME_SUFFIX: checked(
    (raw) => /^[a-z0-9_]{0,30}$/.test(raw),
    () => 'may hold only a-z, 0-9 and _ (at most 30)',
  ),
  SVC_REDIS_URL: checked(
    (raw) => /^rediss?:\/\//.test(raw),
    () => 'must start with redis:// or rediss://',
  ),
  SVC_SERVICE_TOKEN: checked(
    (raw) => raw.length >= 32,
    () => 'must be at least 32 characters',
  ),
  SVC_LOG_LEVEL: checked(
    (raw) => ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(raw),
    (raw) => `'${raw}' is not a log level`,
  ),
  PLAY_AGENT_CONFIG: text,
  PLAY_AGENT_LISTEN: text,
  SVC_PLAY_AGENT_BIND_HOST: host,
  SVC_FRONTEND_PORT: port,
  SVC_USER_PORT: port,
  SVC_MEDIA_PORT: port,
  SVC_STORAGE_PORT: port,
  SVC_CONFIG_PORT: port,
  SVC_GATEWAY_PORT: port,
  SVC_INTERNAL_PORT: port,
  SVC_CLUSTER_PORT: port,
  SVC_CLUSTER_LEASE_SECONDS: converted((raw) => {
    const seconds = Number(raw);
    return Number.isInteger(seconds) && seconds >= 2 && seconds <= 300
      ? seconds
      : { problem: `'${raw}' is not a whole number of seconds from 2 to 300` };
  }),
  SVC_BIND_HOST: host,
  SVC_ADVERTISE_HOST: host,
  SVC_CONFIG_BASE_URL: httpUrl,
  SVC_EMBEDDED_STORAGE_NODE_ID: nodeId,
  SVC_EMBEDDED_PLAY_AGENT_NODE_ID: nodeId,
  SVC_NODE_ID: nodeId,
  SVC_PUBLIC_HOST: checked(
    (raw) => /^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$/.test(raw),
    (raw) => `'${raw}' is not a host name or IP address`,
  ),
  SVC_NODE_IMAGE: imageReference,
  SVC_NODE_IMAGE_FFMPEG: imageReference,
  SVC_TRUSTED_PROXIES: converted((raw) => {
    const entries = list(raw);
    const wrong = entries.find((entry) => !isValidProxyEntry(entry));
    return wrong === undefined ? entries : { problem: `'${wrong}' is not an IP address or CIDR range` };
  }),
  SVC_NODE_TOKEN: text,
  SVC_NODE_WORK_DIR: text,
  SVC_NODE_INSTALL_FORM: text,
  SVC_NODE_FFMPEG: text,
  SVC_BINARIES_DIR: text,
  SVC_REGISTRY_TOKEN: text,
  SVC_WEB_DIR: text,
  SVC_LICENSE_PUBLIC_KEY: licensePublicKey,
  PLAY_AGENT_PUBLIC_BASE_URL: httpUrl,
  PLAY_AGENT_CONFIG_BASE_URL: httpUrl,
  PLAY_AGENT_REGISTRY_TOKEN: text,
  PLAY_AGENT_MEDIA_BASE_URL: httpUrl,
  PLAY_AGENT_USER_BASE_URL: httpUrl,
  SVC_PLAY_AGENT_VFS_CACHE_DIR: text,
  SVC_PLAY_AGENT_IMAGE_CACHE_DIR: text,
  PLAY_AGENT_DRIVE_A_REDIRECT_ALLOWED_HOSTS: text.transform((raw) =>
    list(raw ?? '').map((entry) => entry.toLowerCase()),
  ),
  PLAY_AGENT_DRIVE_A_REDIRECT_USER_AGENT: text,
  /** How often a play-agent runs policy.refresh, 1 to 120 seconds (default 30; tests shorten it). */
  SVC_PLAY_AGENT_POLICY_REFRESH_SECONDS: converted((raw) =>
    /^\d{1,3}$/.test(raw) && Number(raw) >= 1 && Number(raw) <= 120
      ? Number(raw)
      : { problem: `'${raw}' is not a whole number of seconds from 1 to 120` },
  ),
  PLAY_AGENT_SUPPORTED_PROTOCOLS: converted(parseProtocols),
  PLAY_AGENT_STREAM_RATE_LIMIT_MBPS: converted(parseStreamRate),
  PLAY_AGENT_CDN_DOH_URLS: converted((raw) => {
    const urls = list(raw);
    const wrong = urls.find((url) => httpUrlProblem(url) !== undefined);
    return wrong === undefined ? urls : { problem: `'${wrong}' is not an http(s) URL` };
  }),
  PLAY_AGENT_CDN_CA_FILE: text,
  PLAY_AGENT_CDN_ALLOW_PRIVATE_IPS: oneOf(['true', 'false', '1', '0']),
});
export type EnvValues = z.infer<typeof envSchema>;

/** Node install settings: checked only when all three variables are set (settings.ts). */
export const nodeInstallSchema = z.object({
  SVC_NODE_TOKEN: checked(
    (raw) => /^[A-Za-z0-9_-]{8,200}$/.test(raw),
    () => 'is not a node token',
  ),
  SVC_NODE_WORK_DIR: checked(
    (raw) => path.isAbsolute(raw),
    (raw) => `'${raw}' is not absolute`,
  ),
  SVC_NODE_INSTALL_FORM: oneOf(['binary', 'docker']),
});
