import { checkProxySites, PROXY_DEFAULTS, type ProxySitesOptions } from './site-options.js';

/** nginx's `listen` argument for the options' address and port. */
function listen(options: ProxySitesOptions, port: number): string {
  return options.listenAddress === '' ? String(port) : `${options.listenAddress}:${port}`;
}

/** Settings both sites share: HTTP/1.1 upstream, no buffering either way, the forwarded-for headers. */
function proxied(upstream: string, timeoutSeconds: number): string[] {
  return [
    `    proxy_read_timeout ${timeoutSeconds}s;`,
    `    proxy_send_timeout ${timeoutSeconds}s;`,
    `    send_timeout ${timeoutSeconds}s;`,
    '    proxy_request_buffering off;',
    '    proxy_buffering off;',
    '    proxy_http_version 1.1;',
    '    proxy_set_header Connection "";',
    '    proxy_set_header Host $host;',
    '    proxy_set_header X-Real-IP $remote_addr;',
    '    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    '    proxy_set_header X-Forwarded-Proto $scheme;',
    '    proxy_set_header X-Forwarded-Host $host;',
    '',
    '    location / {',
    `        proxy_pass http://${upstream};`,
    '    }',
  ];
}

function tls(site: { certificate: string; certificateKey: string }): string[] {
  return [`    ssl_certificate ${site.certificate};`, `    ssl_certificate_key ${site.certificateKey};`];
}

/**
 * The console site and the playback site as nginx `server` blocks (for sites-enabled/ or an `http {}`
 * block), with a catch-all that refuses unknown names so a misrouted domain never lands on the console.
 */
export function nginxSites(options: ProxySitesOptions): string {
  checkProxySites(options);
  const https = listen(options, options.httpsPort);
  const lines = [
    `# SVC reverse proxy (${options.topology}): console site and playback site. See docs/reverse-proxy.md.`,
    '',
    '# Names that are neither site are refused instead of reaching the first site.',
    'server {',
    `    listen ${https} ssl default_server;`,
    '    ssl_reject_handshake on;',
    '}',
    '',
    '# Console and user portal: browsers.',
    'server {',
    `    listen ${https} ssl;`,
    `    server_name ${options.console.serverName};`,
    ...tls(options.console),
    '',
    `    client_max_body_size ${PROXY_DEFAULTS.consoleBodyLimitMb}m;`,
    `    add_header Strict-Transport-Security "max-age=${PROXY_DEFAULTS.hstsMaxAgeSeconds}" always;`,
    '    add_header X-Content-Type-Options nosniff always;',
    '    # Compression may be on here; event streams are left out of gzip_types so they stay unbuffered.',
    '    gzip on;',
    '    gzip_types text/css application/javascript application/json image/svg+xml;',
    ...proxied(options.console.upstream, options.consoleTimeoutSeconds),
    '}',
    '',
    '# Playback endpoint: players, large files, Range requests, long connections.',
    'server {',
    `    listen ${https} ssl;`,
    `    server_name ${options.playback.serverName};`,
    ...tls(options.playback),
    '',
    '    client_max_body_size 0;',
    '    gzip off;',
    '    # Names this manual address to the play-agent (user-level access, traffic attribution).',
    `    proxy_set_header X-SVC-Endpoint-Token "${options.playback.endpointToken}";`,
    ...proxied(options.playback.upstream, options.playbackTimeoutSeconds),
    '}',
  ];
  if (options.httpPort !== 0) {
    lines.push(
      '',
      'server {',
      `    listen ${listen(options, options.httpPort)};`,
      `    server_name ${options.console.serverName} ${options.playback.serverName};`,
      `    return 301 https://$host${options.httpsPort === 443 ? '' : `:${options.httpsPort}`}$request_uri;`,
      '}',
    );
  }
  return `${lines.join('\n')}\n`;
}
