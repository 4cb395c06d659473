import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nginxSites, type ProxySitesOptions } from '../../../server/src/proxy-sites/index.js';
import { startNginx, type RealNginx } from '../../../server/test/proxy/real-nginx.js';
import { launchChromium, openPage } from './support/browser.js';
import { callApi, startStandalone, type RunningInstall } from './support/install.js';
import { settled, signIn } from './support/ui.js';

const ADMIN = { username: 'root', password: 'root-password-1' };
/** The console's name; the playback site uses this machine's name (both must resolve, to loopback). */
const CONSOLE = 'localhost';

/**
 * The Diagnostics page and the manual address's snippet card in Chromium, against the built program
 * behind a real nginx with the generated sites (self-signed certificate the program trusts through
 * NODE_EXTRA_CA_CERTS): the card shows the address's real endpoint token, the page shows every check,
 * then names response buffering turned on in front of the playback port.
 */
describe('diagnostics page behind a real nginx', () => {
  let nginx: RealNginx;
  let install: RunningInstall;
  let browser: Browser;
  let headers: Record<string, string>;
  let manual: { nodeId: string; endpointToken: string };
  let sites: string;
  let playbackName: string;
  const consoleOrigin = () => `https://${CONSOLE}:${nginx.httpsPort}`;

  beforeAll(async () => {
    playbackName = hostname().toLowerCase();
    const address = await lookup(playbackName);
    if (!address.address.startsWith('127.'))
      throw new Error(`this test needs the machine name ${playbackName} to resolve to loopback`);
    nginx = await startNginx([CONSOLE, playbackName]);
    [install, browser] = await Promise.all([
      startStandalone({ NODE_EXTRA_CA_CERTS: path.resolve(nginx.tls.certificate) }),
      launchChromium(),
    ]);
    await callApi(install.entrance, 'POST', '/api/auth/setup/admin', { body: ADMIN });
    const login = await callApi(install.entrance, 'POST', '/api/auth/login', {
      body: { ...ADMIN, client: 'console' },
    });
    headers = { 'x-admin-token': String(login.body.adminToken) };
    const created = await callApi(install.entrance, 'POST', '/api/config/nodes', {
      headers,
      body: {
        serviceType: 'manual-play-agent-endpoint',
        nodeId: '',
        name: 'Proxied playback',
        externalAddress: { protocol: 'https', host: playbackName, port: nginx.httpsPort },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const body = created.body as { node: { nodeId: string }; credentials: { endpointToken: string } };
    manual = { nodeId: body.node.nodeId, endpointToken: body.credentials.endpointToken };
    const tls = { certificate: nginx.tls.certificate, certificateKey: nginx.tls.key };
    const options: ProxySitesOptions = {
      topology: 'standalone',
      console: { serverName: CONSOLE, ...tls, upstream: install.entrance.replace('http://', '') },
      playback: {
        serverName: playbackName,
        ...tls,
        upstream: install.playAgent.replace('http://', ''),
        endpointToken: manual.endpointToken,
      },
      httpsPort: nginx.httpsPort,
      httpPort: 0,
      listenAddress: '127.0.0.1',
      consoleTimeoutSeconds: 30,
      playbackTimeoutSeconds: 30,
    };
    sites = nginxSites(options);
    await nginx.load(sites);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await install?.stop();
    await nginx?.stop();
  });

  it("shows the manual address's proxy sites with its real endpoint token", async () => {
    const watched = await openPage(browser, 'web-diagnostics', { ignoreHTTPSErrors: true });
    const { page } = watched;
    await watched.context.addInitScript(() => localStorage.setItem('svc.language', 'en'));
    await signIn(page, consoleOrigin(), 'console', ADMIN.username, ADMIN.password);
    await page.goto(`${consoleOrigin()}/console/nodes/${encodeURIComponent(manual.nodeId)}`);
    await settled(page);
    await page.getByTestId('node-proxy-snippet-button').click();
    const text = page.getByTestId('node-proxy-snippet-text');
    await text.waitFor();
    const snippet = await text.innerText();
    expect(snippet).toContain(`proxy_set_header X-SVC-Endpoint-Token "${manual.endpointToken}";`);
    expect(snippet).toContain(`server_name ${playbackName};`);
    expect(snippet).toContain(`server_name ${CONSOLE};`);
    await watched.screenshot('snippet');
    expect(watched.problems).toEqual([]);
  }, 120_000);

  it('runs the checks of svc doctor and names buffering in front of the playback port', async () => {
    const watched = await openPage(browser, 'web-diagnostics-run', { ignoreHTTPSErrors: true });
    const { page } = watched;
    await watched.context.addInitScript(() => localStorage.setItem('svc.language', 'en'));
    await signIn(page, consoleOrigin(), 'console', ADMIN.username, ADMIN.password);
    await page.goto(`${consoleOrigin()}/console/diagnostics`);
    await settled(page);
    const runChecks = async () => {
      await page.getByTestId('diagnostics-hold').fill('5');
      await page.getByTestId('diagnostics-run').click();
      await page.getByTestId('diagnostics-results').waitFor({ timeout: 90_000 });
    };
    const statusOf = (id: string) =>
      page.getByTestId(`diagnostics-check-${id}`).first().getAttribute('data-status');

    await runChecks();
    for (const id of [
      'playback-site',
      'endpoint-token',
      'playback-range',
      'playback-compression',
      'playback-buffering',
      'playback-timeout',
      'console-site',
      'console-buffering',
      'console-timeout',
      'manual-address-reachable',
      'node-pending',
      'play-agent-port',
    ])
      expect(await statusOf(id), id).toBe('ok');
    await watched.screenshot('all-ok');

    const at = sites.lastIndexOf('proxy_buffering off;');
    await nginx.load(
      `${sites.slice(0, at)}proxy_buffering on;${sites.slice(at + 'proxy_buffering off;'.length)}`,
    );
    try {
      await page.reload();
      await settled(page);
      await runChecks();
      expect(await statusOf('playback-buffering')).toBe('problem');
      const card = page.getByTestId('diagnostics-check-playback-buffering').first();
      await card.getByText(/proxy_buffering off/).waitFor();
      await watched.screenshot('buffering');
    } finally {
      await nginx.load(sites);
    }
    expect(watched.problems).toEqual([]);
  }, 240_000);
});
