import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from './support/browser.js';
import { callApi, startStandalone, type RunningInstall } from './support/install.js';
import { settled, signIn } from './support/ui.js';

const ADMIN = { username: 'root', password: 'root-password-1' };
const GiB = 1024 ** 3;

/**
 * The node cache page in Chromium against the real standalone program: reached from the built-in
 * play-agent's node page, a setting saved and read back after a reload, the empty entry list, the flush
 * behind its "not recoverable" acknowledgement, and the sync card with no other play-agent to copy to.
 */
describe('node cache page', () => {
  let install: RunningInstall;
  let browser: Browser;
  let adminHeaders: Record<string, string>;
  let nodeId: string;

  const api = async (route: string) => {
    const answer = await callApi(install.entrance, 'GET', route, { headers: adminHeaders });
    expect(answer.status, route).toBe(200);
    return answer.body;
  };

  beforeAll(async () => {
    [install, browser] = await Promise.all([startStandalone(), launchChromium()]);
    await callApi(install.entrance, 'POST', '/api/auth/setup/admin', { body: ADMIN });
    const login = await callApi(install.entrance, 'POST', '/api/auth/login', {
      body: { ...ADMIN, client: 'console' },
    });
    adminHeaders = { 'x-admin-token': String(login.body.adminToken) };
    const { nodes } = (await api('/api/config/nodes')) as {
      nodes: { nodeId: string; serviceType: string }[];
    };
    const playAgent = nodes.find((node) => node.serviceType === 'svc-play-agent');
    if (!playAgent) throw new Error('the built-in play-agent is not registered');
    nodeId = playAgent.nodeId;
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await install?.stop();
  });

  it('saves a setting, lists no entries, flushes after confirmation', async () => {
    const watched = await openPage(browser, 'web-node-cache');
    const { page } = watched;
    await watched.context.addInitScript(() => localStorage.setItem('svc.language', 'en'));
    await signIn(page, install.entrance, 'console', ADMIN.username, ADMIN.password);

    await page.goto(`${install.entrance}/console/nodes/${encodeURIComponent(nodeId)}`);
    await page.getByTestId('node-cache-link').click();
    await page.waitForURL(new RegExp(`/console/cache/${nodeId}$`));
    await settled(page);

    // Disk usage comes from the node itself; nothing is cached on a fresh install.
    await page
      .getByTestId('cache-usage')
      .getByText(/0 entries, 0 playing/)
      .waitFor();
    await page.getByTestId('cache-entries-empty').waitFor();
    // Standalone has a single play-agent: nothing to copy to.
    await page.getByTestId('cache-sync').getByText('There is no other play-agent node.').waitFor();

    // Change settings and save.
    expect(await page.getByTestId('vfs-enabled-switch').isChecked()).toBe(false);
    await page.getByTestId('vfs-enabled-switch').dispatchEvent('click');
    await page.getByLabel('Capacity (GB)', { exact: true }).fill('30');
    await page.getByLabel(/Read-ahead buffer/).fill('600');
    await page.getByTestId('read-ahead-warning').waitFor();
    await watched.screenshot('edited');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(async () => {
        const config = (await api(`/api/config/nodes/${nodeId}/cache-config`)) as {
          vfs: { enabled: boolean; capacityBytes: number; readAheadBytes: number };
        };
        return config.vfs;
      })
      .toMatchObject({ enabled: true, capacityBytes: 30 * GiB, readAheadBytes: 600 * 1024 ** 2 });

    // The page shows the saved values after a reload.
    await page.reload();
    await settled(page);
    await expect.poll(() => page.getByLabel('Capacity (GB)', { exact: true }).inputValue()).toBe('30');
    expect(await page.getByTestId('vfs-enabled-switch').isChecked()).toBe(true);
    await page
      .getByTestId('cache-usage')
      .getByText(/0 entries/)
      .waitFor();

    // Flush: the dialog does nothing until the loss is acknowledged.
    await page.getByRole('button', { name: 'Flush caches' }).click();
    const dialog = page.getByRole('dialog', { name: 'Flush the video and image caches?' });
    await dialog.getByText('This cannot be undone.', { exact: false }).waitFor();
    expect(await page.getByTestId('flush-confirm').isDisabled()).toBe(true);
    await page.getByTestId('flush-understand').check();
    await page.getByTestId('flush-confirm').click();
    await page.getByText(/Flushed: 0 video entries removed/).waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByTestId('cache-entries-empty').waitFor();

    expect(await page.getByTestId('error-alert').count()).toBe(0);
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  }, 180_000);
});
