import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startCdnServers, type CdnServers } from '../../../server/test/support/drive-servers/cdn-servers.js';
import { startDohServer, type DohServer } from '../../../server/test/support/drive-servers/doh-server.js';
import { createTestCa, type TestCa } from '../../../server/test/support/drive-servers/test-ca.js';
import { launchChromium, openPage } from './support/browser.js';
import { callApi, startStandalone, type RunningInstall } from './support/install.js';
import { settled, signIn } from './support/ui.js';

const ADMIN = { username: 'root', password: 'root-password-1' };
const HOSTNAME = 'cdn.web-e2e.test';

/**
 * The CDN preference page of the built-in play-agent in Chromium against the real standalone program, with
 * a DoH resolver and two HTTPS CDN addresses on loopback: reached from the node cache page, a probe of the
 * host picks the faster address, one address is measured, manual addresses are saved and honoured, a bad
 * address is refused with the field named; the page in Chinese.
 */
describe('node CDN preference page', () => {
  let install: RunningInstall;
  let browser: Browser;
  let adminHeaders: Record<string, string>;
  let nodeId: string;
  let ca: TestCa;
  let cdn: CdnServers;
  let doh: DohServer;

  beforeAll(async () => {
    ca = createTestCa([HOSTNAME]);
    cdn = await startCdnServers({
      hostname: HOSTNAME,
      ca,
      tree: { '/a.bin': randomBytes(1024) },
      tokens: new Set(['t']),
      profiles: {
        '127.0.0.2': { latencyMs: 800, bytesPerSecond: 1024 * 1024 },
        '127.0.0.3': { latencyMs: 1, bytesPerSecond: 1024 * 1024 },
      },
    });
    doh = await startDohServer(ca, { [HOSTNAME]: ['127.0.0.2', '127.0.0.3'] });
    [install, browser] = await Promise.all([
      startStandalone({
        PLAY_AGENT_CDN_DOH_URLS: doh.url,
        PLAY_AGENT_CDN_CA_FILE: ca.caFile,
        PLAY_AGENT_CDN_ALLOW_PRIVATE_IPS: 'true',
      }),
      launchChromium(),
    ]);
    await callApi(install.entrance, 'POST', '/api/auth/setup/admin', { body: ADMIN });
    const login = await callApi(install.entrance, 'POST', '/api/auth/login', {
      body: { ...ADMIN, client: 'console' },
    });
    adminHeaders = { 'x-admin-token': String(login.body.adminToken) };
    const answer = await callApi(install.entrance, 'GET', '/api/config/nodes', { headers: adminHeaders });
    const { nodes } = answer.body as { nodes: { nodeId: string; serviceType: string }[] };
    const playAgent = nodes.find((node) => node.serviceType === 'svc-play-agent');
    if (!playAgent) throw new Error('the built-in play-agent is not registered');
    nodeId = playAgent.nodeId;
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await install?.stop();
    await Promise.allSettled([cdn?.stop(), doh?.stop()]);
    ca?.remove();
  });

  it('probes, measures one address and saves manual addresses', async () => {
    const watched = await openPage(browser, 'web-node-cdn');
    const { page } = watched;
    // English unless the test switched the language (the script runs again at every load).
    await watched.context.addInitScript(() => {
      if (!localStorage.getItem('svc.language')) localStorage.setItem('svc.language', 'en');
    });
    await signIn(page, install.entrance, 'console', ADMIN.username, ADMIN.password);

    await page.goto(`${install.entrance}/console/cache/${encodeURIComponent(nodeId)}`);
    await settled(page);
    await page.getByTestId('node-cdn-link').click();
    await page.waitForURL(new RegExp(`/console/cache/${nodeId}/cdn$`));
    await settled(page);
    await page.getByTestId('cdn-no-hosts').waitFor();
    expect(await page.getByTestId('cdn-enabled-switch').isChecked()).toBe(true);

    // Probe the host: the DoH answer names both addresses; the one without delay becomes the primary.
    await page.getByLabel('CDN host (optional)').fill(cdn.host);
    await page.getByRole('button', { name: 'Probe now' }).click();
    const card = page.getByTestId(`cdn-host-${cdn.host}`);
    await card.getByText('Primary address: 127.0.0.3').waitFor({ timeout: 120_000 });
    await card.getByTestId('cdn-pool-127.0.0.2').waitFor();
    await watched.screenshot('probed');

    // One address measured on demand.
    await page.getByLabel('IP address').fill('127.0.0.2');
    await page.getByRole('button', { name: 'Measure', exact: true }).click();
    await page
      .getByTestId('cdn-measure-result')
      .getByText(/127\.0\.0\.2: latency \d+ ms/)
      .waitFor({ timeout: 60_000 });

    // A bad address is refused with the field named.
    await card.getByLabel('Preferred addresses').fill('999.1.1.1');
    await card.getByRole('button', { name: 'Save manual addresses' }).click();
    await card.getByText(/preferredIps/).waitFor();

    // The slow address preferred by hand becomes the primary.
    await card.getByLabel('Preferred addresses').fill('127.0.0.2');
    await card.getByRole('button', { name: 'Save manual addresses' }).click();
    await page
      .getByTestId(`cdn-host-${cdn.host}`)
      .getByText('Primary address: 127.0.0.2')
      .waitFor({ timeout: 120_000 });
    const status = await callApi(install.entrance, 'GET', `/api/config/nodes/${nodeId}/proxy/cdn/status`, {
      headers: adminHeaders,
    });
    expect(status.body).toMatchObject({
      hosts: [{ host: cdn.host, primaryIp: '127.0.0.2', manualPreferredIps: ['127.0.0.2'] }],
    });

    // The same page in Chinese.
    await page.evaluate(() => localStorage.setItem('svc.language', 'zh'));
    await page.reload();
    await settled(page);
    await page.getByText('主地址：127.0.0.2').waitFor();
    await watched.screenshot('zh');
  }, 400_000);
});
