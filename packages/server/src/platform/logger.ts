import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger } from 'pino';

/** Header and query names whose values never reach a log line. */
const SECRET_NAMES = [
  'authorization',
  'x-admin-token',
  'x-emby-token',
  'x-mediabrowser-token',
  'x-emby-authorization',
  'x-svc-endpoint-token',
  'cookie',
  'set-cookie',
  'api_key',
  'apikey',
  'token',
  'password',
  'pw',
];

const SECRET_QUERY =
  /([?&](?:api_key|apikey|token|x-emby-token|signature|sign|sig|expires|auth_key|password|pw)=)[^&#\s]*/gi;
const INSTALL_TOKEN_PATH = /(\/api\/config\/nodes\/install\/)[^/?#\s]+/g;
const WEBHOOK_TOKEN_PATH = /(\/api\/webhook\/)[^/?#\s]+/g;

/** Removes credentials from a URL or path before it is logged. */
export function redactUrl(url: string): string {
  return url
    .replace(SECRET_QUERY, '$1[REDACTED]')
    .replace(INSTALL_TOKEN_PATH, '$1[REDACTED]')
    .replace(WEBHOOK_TOKEN_PATH, '$1[REDACTED]');
}

function redactHeaders(headers: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!headers) return headers;
  const copy: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    copy[name] = SECRET_NAMES.includes(name.toLowerCase()) ? '[REDACTED]' : value;
  }
  return copy;
}

export interface LoggerOptions {
  level: string;
  component: string;
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { pid: process.pid, component: options.component },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: SECRET_NAMES.flatMap((name) => [`*.${name}`, `*.headers["${name}"]`, `${name}`]),
        censor: '[REDACTED]',
      },
      serializers: {
        req: (req: { method?: string; url?: string; headers?: Record<string, unknown>; ip?: string }) => ({
          method: req.method,
          url: req.url ? redactUrl(req.url) : req.url,
          remoteAddress: req.ip,
        }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
        headers: redactHeaders,
        url: (url: string) => redactUrl(url),
        err: pino.stdSerializers.err,
      },
    },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
