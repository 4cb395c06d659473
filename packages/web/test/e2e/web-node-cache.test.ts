import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { makeVideo } from '../../../server/test/support/media-fixtures.js';
import { launchChromium, openPage } from './support/browser.js';
import { callApi, startStandalone, type RunningInstall } from './support/install.js';
import { playWholeFiles, startWebdavFolder, type WebdavFolder } from './support/webdav-library.js';
import { settled, signIn } from './support/ui.js';

const ADMIN = { username: 'root', password: 'root-password-1' };
const GiB = 1024 ** 3;
const TITLES = ['Alpha Movie (2020)', 'Beta Movie (2021)'];
/** The entries carry the scanned titles (the folder name without its year). */
const NAMES = ['Alpha Movie', 'Beta Movie'];

/**
 * The node cache page in Chromium against the real standalone program: reached from the built-in
 * play-agent's node page, a setting saved and read back after a reload, the entries of two films played
 * from a WebDAV library listed, searched and one deleted, the flush behind its "not recoverable"
 * acknowledgement, and the sync card with no other play-agent to copy to.
 */
describe('node cache page', () => {
  let install: RunningInstall;
  let browser: Browser;
  let adminHeaders: Record<string, string>;
  let nodeId: string;
  let dav: WebdavFolder;
  const mediaDir = mkdtempSync(path.join(tmpdir(), 'svc-web-cache-media-'));

  const api = async (route: string) => {
    const answer = await callApi(install.entrance, 'GET', route, { headers: adminHeaders });
    expect(answer.status, route).toBe(200);
    return answer.body;
  };

  beforeAll(async () => {
    for (const title of TITLES) {
      const file = path.join(mediaDir, title, `${title}.mp4`);
      await makeVideo(file, { seconds: 6, languages: ['eng'], format: 'mp4' });
    }
    // Started on its own, so that afterAll stops it even when the install fails to start.
    dav = await startWebdavFolder(mediaDir);
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
    await dav.scannedLibrary(install.entrance, adminHeaders);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await install?.stop();
    await dav?.stop();
    rmSync(mediaDir, { recursive: true, force: true });
  });

  it('configures, lists, searches and deletes entries, and flushes after confirmation', async () => {
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
    // The read-ahead warning follows the disk type: above 384 MB unknown, 512 MB SSD, 256 MB hard disk.
    const warning = page.getByTestId('read-ahead-warning');
    const pickDisk = async (name: string) => {
      await page.getByTestId('disk-type').click();
      await page.getByRole('option', { name, exact: true }).click();
    };
    await page.getByLabel(/Read-ahead buffer/).fill('385');
    await warning.getByText('384 MB', { exact: false }).waitFor();
    await pickDisk('SSD');
    await warning.waitFor({ state: 'detached' });
    await page.getByLabel(/Read-ahead buffer/).fill('600');
    await warning.getByText('512 MB', { exact: false }).waitFor();
    await page.getByLabel(/Read-ahead buffer/).fill('300');
    await pickDisk('Hard disk');
    await warning.getByText('256 MB', { exact: false }).waitFor();
    await page.getByLabel(/Read-ahead buffer/).fill('600');
    // The image cache and the probing during playback are on the same form.
    await page.getByLabel('Capacity (MB)', { exact: true }).fill('200');
    await page.getByTestId('probe-maxConcurrency').click();
    await page.getByRole('option', { name: '2', exact: true }).click();
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
    expect(await api(`/api/config/nodes/${nodeId}/cache-config`)).toMatchObject({
      image: { capacityBytes: 200 * 1024 ** 2 },
      metadataProbe: { maxConcurrency: 2 },
    });

    // The page shows the saved values after a reload.
    await page.reload();
    await settled(page);
    await expect.poll(() => page.getByLabel('Capacity (GB)', { exact: true }).inputValue()).toBe('30');
    expect(await page.getByTestId('vfs-enabled-switch').isChecked()).toBe(true);
    await page
      .getByTestId('cache-usage')
      .getByText(/0 entries/)
      .waitFor();

    // Two films played through the play-agent now sit in the video cache.
    await playWholeFiles(install.playAgent, ADMIN, TITLES.length);
    await expect
      .poll(
        async () => {
          const items = (await api(
            `/api/config/nodes/${nodeId}/proxy/cache/vfs-items?page=1&pageSize=10&groupByEpisodes=false&sort=lastAccess&order=desc`,
          )) as { total: number };
          return items.total;
        },
        { timeout: 60_000 },
      )
      .toBe(TITLES.length);
    await page.reload();
    await settled(page);
    const entries = page.getByTestId('cache-entry');
    await expect.poll(() => entries.count()).toBe(TITLES.length);
    await page.getByTestId('cache-entries').getByText(NAMES[0]!).waitFor();

    // Search narrows the list; the delete asks first, then removes that one entry only.
    await page.getByLabel('Search by name or source').fill('Alpha');
    await expect.poll(() => entries.count()).toBe(1);
    await entries.first().getByText(NAMES[0]!).waitFor();
    await watched.screenshot('searched');
    await entries.first().getByTestId('cache-entry-delete').click();
    await page.getByTestId('confirm-dialog').getByText(NAMES[0]!, { exact: false }).waitFor();
    await page.getByTestId('confirm-button').click();
    await page.getByTestId('confirm-dialog').waitFor({ state: 'hidden' });
    await page.getByTestId('cache-entries-empty').waitFor();
    await page.getByLabel('Search by name or source').fill('');
    await expect.poll(() => entries.count()).toBe(1);
    await entries.first().getByText(NAMES[1]!).waitFor();

    // Flush: the dialog does nothing until the loss is acknowledged.
    await page.getByRole('button', { name: 'Flush caches' }).click();
    const dialog = page.getByRole('dialog', { name: 'Flush the video and image caches?' });
    await dialog.getByText('This cannot be undone.', { exact: false }).waitFor();
    expect(await page.getByTestId('flush-confirm').isDisabled()).toBe(true);
    await page.getByTestId('flush-understand').check();
    await page.getByTestId('flush-confirm').click();
    await page.getByText(/Flushed: 1 video entries removed/).waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByTestId('cache-entries-empty').waitFor();

    expect(await page.getByTestId('error-alert').count()).toBe(0);
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  }, 240_000);
});
