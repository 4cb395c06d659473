import { checkProxySites, PROXY_DEFAULTS, type ProxySitesOptions } from './site-options.js';

function address(serverName: string, options: ProxySitesOptions): string {
  return options.httpsPort === 443 ? serverName : `${serverName}:${options.httpsPort}`;
}

/**
 * Caddy forwards Host, X-Forwarded-For and X-Forwarded-Proto and passes custom headers by itself, and
 * does not buffer request bodies; what is left is said explicitly.
 */
function proxied(upstream: string, timeoutSeconds: number, extraHeaders: string[]): string[] {
  return [
    `    reverse_proxy ${upstream} {`,
    '        flush_interval -1',
    '        header_up X-Real-IP {remote_host}',
    ...extraHeaders,
    '        transport http {',
    '            versions 1.1',
    `            read_timeout ${timeoutSeconds}s`,
    `            write_timeout ${timeoutSeconds}s`,
    '        }',
    '    }',
  ];
}

/** The console site and the playback site as a Caddyfile. */
export function caddySites(options: ProxySitesOptions): string {
  checkProxySites(options);
  const bind = options.listenAddress === '' ? [] : [`    bind ${options.listenAddress}`];
  const global =
    options.httpPort === 0
      ? ['{', '    auto_https disable_redirects', '}', '']
      : options.httpPort === 80
        ? []
        : ['{', `    http_port ${options.httpPort}`, `    https_port ${options.httpsPort}`, '}', ''];
  const lines = [
    `# SVC reverse proxy (${options.topology}): console site and playback site. See docs/reverse-proxy.md.`,
    ...global,
    '# Console and user portal: browsers. Compression may be enabled here (encode), not on playback.',
    `${address(options.console.serverName, options)} {`,
    ...bind,
    `    tls ${options.console.certificate} ${options.console.certificateKey}`,
    '    request_body {',
    `        max_size ${PROXY_DEFAULTS.consoleBodyLimitMb}MiB`,
    '    }',
    '    header {',
    `        Strict-Transport-Security "max-age=${PROXY_DEFAULTS.hstsMaxAgeSeconds}"`,
    '        X-Content-Type-Options nosniff',
    '    }',
    ...proxied(options.console.upstream, options.consoleTimeoutSeconds, []),
    '}',
    '',
    '# Playback endpoint: no body limit, no compression, the endpoint token injected.',
    `${address(options.playback.serverName, options)} {`,
    ...bind,
    `    tls ${options.playback.certificate} ${options.playback.certificateKey}`,
    ...proxied(options.playback.upstream, options.playbackTimeoutSeconds, [
      `        header_up X-SVC-Endpoint-Token "${options.playback.endpointToken}"`,
    ]),
    '}',
  ];
  return `${lines.join('\n')}\n`;
}
