import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { proxyOptionsFromArgs, runProxy } from '../../src/cli/proxy.js';
import {
  caddySites,
  nginxSites,
  ProxySiteError,
  type ProxySitesOptions,
} from '../../src/proxy-sites/index.js';

const BASE = ['--console-name', 'media.example.com', '--playback-name', 'play.example.com'];
const TOKEN = ['--endpoint-token', 'svc_ept_0123456789abcdef'];

function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

/** The server block of the named site (from its server_name to the closing brace at line start). */
const nginxBlock = (text: string, name: string) => {
  const start = text.indexOf(`server_name ${name};`);
  return text.slice(start, text.indexOf('\n}', start));
};
const caddyBlock = (text: string, name: string) => {
  const start = text.indexOf(`${name} {`);
  return text.slice(start, text.indexOf('\n}', start));
};

describe('the reverse-proxy site generator', () => {
  const standalone = proxyOptionsFromArgs([...BASE, ...TOKEN]);

  it('writes every row of the parameter table into the nginx sites', () => {
    const text = nginxSites(standalone);
    const consoleSite = nginxBlock(text, 'media.example.com');
    const playback = nginxBlock(text, 'play.example.com');
    expect(consoleSite).toContain('proxy_pass http://127.0.0.1:18080;');
    expect(playback).toContain('proxy_pass http://127.0.0.1:19090;');
    expect(consoleSite).toContain('client_max_body_size 20m;');
    expect(playback).toContain('client_max_body_size 0;');
    for (const site of [consoleSite, playback]) {
      expect(site).toContain('proxy_request_buffering off;');
      expect(site).toContain('proxy_buffering off;');
      expect(site).toContain('proxy_http_version 1.1;');
      for (const header of [
        'Host $host',
        'X-Real-IP $remote_addr',
        'X-Forwarded-For $proxy_add_x_forwarded_for',
        'X-Forwarded-Proto $scheme',
      ])
        expect(site).toContain(`proxy_set_header ${header};`);
      // Custom headers (X-Admin-Token, X-Storage-Node-Id) pass untouched: nothing clears or rewrites them.
      expect(site).not.toMatch(/proxy_set_header X-(Admin-Token|Storage-Node-Id)/);
      expect(site).not.toContain('proxy_pass_request_headers off');
    }
    expect(consoleSite).toContain('proxy_read_timeout 600s;');
    expect(consoleSite).toContain('send_timeout 600s;');
    expect(playback).toContain('proxy_read_timeout 3600s;');
    expect(playback).toContain('proxy_send_timeout 3600s;');
    expect(playback).toContain('gzip off;');
    expect(consoleSite).not.toMatch(/gzip_types[^;]*event-stream/);
    expect(consoleSite).toMatch(/add_header Strict-Transport-Security "max-age=\d+" always;/);
    expect(consoleSite).toContain('add_header X-Content-Type-Options nosniff always;');
    expect(playback).toContain('proxy_set_header X-SVC-Endpoint-Token "svc_ept_0123456789abcdef";');
    expect(consoleSite).not.toContain('X-SVC-Endpoint-Token');
    expect(consoleSite).toContain('ssl_certificate /etc/letsencrypt/live/media.example.com/fullchain.pem;');
    expect(text).toContain('ssl_reject_handshake on;');
    expect(text).toContain('return 301 https://$host$request_uri;');
  });

  it('writes the same rows into the Caddyfile', () => {
    const text = caddySites(standalone);
    const consoleSite = caddyBlock(text, 'media.example.com');
    const playback = caddyBlock(text, 'play.example.com');
    expect(consoleSite).toContain('max_size 20MiB');
    expect(playback).not.toContain('max_size');
    expect(consoleSite).toContain('read_timeout 600s');
    expect(playback).toContain('write_timeout 3600s');
    for (const site of [consoleSite, playback]) {
      expect(site).toContain('flush_interval -1');
      expect(site).toContain('versions 1.1');
      expect(site).toContain('header_up X-Real-IP {remote_host}');
    }
    expect(playback).not.toContain('encode');
    expect(playback).toContain('header_up X-SVC-Endpoint-Token "svc_ept_0123456789abcdef"');
    expect(consoleSite).toContain('X-Content-Type-Options nosniff');
  });

  it('points the distributed playback site at the play-agent node and needs its host', () => {
    const options = proxyOptionsFromArgs([
      ...BASE,
      ...TOKEN,
      '--topology',
      'distributed',
      '--play-agent-host',
      '10.0.0.7',
    ]);
    expect(nginxBlock(nginxSites(options), 'play.example.com')).toContain(
      'proxy_pass http://10.0.0.7:19090;',
    );
    expect(nginxSites(options)).toContain('(distributed)');
    expect(() => proxyOptionsFromArgs([...BASE, ...TOKEN, '--topology', 'distributed'])).toThrow(
      /play-agent-host/,
    );
  });

  it('takes timeouts, ports, listen address and certificate paths as parameters', () => {
    const options = proxyOptionsFromArgs([
      ...BASE,
      ...TOKEN,
      '--console-timeout',
      '5',
      '--playback-timeout',
      '7',
      '--https-port',
      '8443',
      '--http-port',
      '0',
      '--listen',
      '127.0.0.1',
      '--playback-cert',
      '/certs/play.pem',
      '--playback-key',
      '/certs/play.key',
    ]);
    const text = nginxSites(options);
    expect(text).toContain('proxy_read_timeout 5s;');
    expect(text).toContain('proxy_read_timeout 7s;');
    expect(text).toContain('listen 127.0.0.1:8443 ssl;');
    expect(text).not.toContain('return 301');
    expect(text).toContain('ssl_certificate_key /certs/play.key;');
    expect(caddySites(options)).toContain('play.example.com:8443 {');
  });

  it('refuses sites that break the proxy rules', () => {
    const broken = (change: Partial<ProxySitesOptions>) => () => nginxSites({ ...standalone, ...change });
    expect(broken({ playback: { ...standalone.playback, serverName: 'MEDIA.example.com' } })).toThrow(
      /different server names/,
    );
    expect(broken({ playback: { ...standalone.playback, upstream: '127.0.0.1:18080' } })).toThrow(
      /not to the console/,
    );
    for (const port of [5432, 6379, 18085, 18089])
      expect(broken({ console: { ...standalone.console, upstream: `10.0.0.2:${port}` } })).toThrow(
        ProxySiteError,
      );
    expect(broken({ playback: { ...standalone.playback, endpointToken: 'a"; evil' } })).toThrow(
      /endpoint token/,
    );
    expect(broken({ consoleTimeoutSeconds: 0 })).toThrow(/timeout/);
  });

  it('answers exit code 2 with the usage on wrong input, 0 with the sites', () => {
    const out = sink();
    const err = sink();
    expect(runProxy(['apache', ...BASE], { stdout: out.stream, stderr: err.stream })).toBe(2);
    expect(runProxy(['nginx', ...BASE], { stdout: out.stream, stderr: err.stream })).toBe(2);
    expect(err.text()).toContain('--endpoint-token is required');
    expect(out.text()).toBe('');
    expect(runProxy(['caddy', ...BASE, ...TOKEN], { stdout: out.stream, stderr: err.stream })).toBe(0);
    expect(out.text()).toContain('reverse_proxy 127.0.0.1:19090');
  });
});
