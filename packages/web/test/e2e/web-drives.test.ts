import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Response } from 'playwright-core';
import {
  startDriveAServer,
  type DriveAServer,
} from '../../../server/test/support/drive-servers/drive-a-server.js';
import { launchChromium, openPage } from './support/browser.js';
import { callApi, startStandalone, type RunningInstall } from './support/install.js';
import { settled, signIn } from './support/ui.js';

const ADMIN = { username: 'root', password: 'root-password-1' };
const TOKEN = 'alist-e2e-token-never-shown-4242';
const FOLDER_PASSWORD = 'folder-secret-e2e-1717';
const MASK = '********';

/**
 * Drive accounts and the DRIVE_A play mode in Chromium against the real standalone program and a loopback
 * DRIVE_A server: an account added under storage, a DRIVE_A mount choosing it, and a user's play mode set
 * to redirect (302). The credentials typed in are never shown again: not in the page, not in any answer.
 */
describe('drive accounts and the DRIVE_A play mode', () => {
  let install: RunningInstall;
  let browser: Browser;
  let drive: DriveAServer;
  let adminHeaders: Record<string, string>;
  let viewerId: string;

  const api = async (route: string) => {
    const answer = await callApi(install.entrance, 'GET', route, { headers: adminHeaders });
    expect(answer.status, route).toBe(200);
    return answer.body;
  };

  beforeAll(async () => {
    [install, browser, drive] = await Promise.all([
      startStandalone(),
      launchChromium(),
      startDriveAServer({ '/Films/film.mkv': Buffer.from('film bytes') }, { token: TOKEN }),
    ]);
    await callApi(install.entrance, 'POST', '/api/auth/setup/admin', { body: ADMIN });
    const login = await callApi(install.entrance, 'POST', '/api/auth/login', {
      body: { ...ADMIN, client: 'console' },
    });
    adminHeaders = { 'x-admin-token': String(login.body.adminToken) };
    const viewer = await callApi(install.entrance, 'POST', '/api/auth/admin/users', {
      headers: adminHeaders,
      body: { username: 'viewer', password: 'viewer-password-1' },
    });
    expect(viewer.status).toBe(201);
    viewerId = String(viewer.body.id);
  }, 480_000);
  afterAll(async () => {
    await browser?.close();
    await install?.stop();
    await drive?.stop();
  });

  it('adds an account and a mount, sets a user to redirect, and never shows the credentials again', async () => {
    const watched = await openPage(browser, 'web-drives');
    const { page } = watched;
    await watched.context.addInitScript(() => localStorage.setItem('svc.language', 'en'));
    // Every answer of the API the page receives, to look for the secrets in.
    const answers: Promise<string>[] = [];
    page.on('response', (response: Response) => {
      // An event stream stays open while its page is shown: its text would never settle.
      const streaming = (response.headers()['content-type'] ?? '').startsWith('text/event-stream');
      if (new URL(response.url()).pathname.startsWith('/api/') && !streaming) {
        answers.push(response.text().catch(() => ''));
      }
    });
    const pageShowsNoSecret = async () => {
      const html = await page.content();
      expect(html).not.toContain(TOKEN);
      expect(html).not.toContain(FOLDER_PASSWORD);
    };
    await signIn(page, install.entrance, 'console', ADMIN.username, ADMIN.password);

    // The account, under storage.
    await page.goto(`${install.entrance}/console/storage`);
    await settled(page);
    await page.getByTestId('tab-drive-accounts').click();
    await page.waitForURL(/\/console\/storage\/drive-accounts$/);
    await page.getByTestId('drive-accounts-empty').waitFor();
    await page.getByTestId('drive-account-create').click();
    const form = page.getByTestId('drive-account-form');
    await form.getByTestId('drive-account-name').fill('Home drive');
    await form.getByTestId('drive-account-url').fill(drive.url);
    await form.getByTestId('drive-account-secret').fill(TOKEN);
    await form.getByLabel('Folder password').fill(FOLDER_PASSWORD);
    await form.getByTestId('drive-account-user-agent').fill('HomePlayer/1.0');
    await form.getByTestId('drive-account-private').check();
    await form.getByTestId('drive-account-save').click();
    await form.waitFor({ state: 'hidden' });
    const row = page.getByTestId('drive-account-row').filter({ hasText: 'Home drive' });
    await row.getByText('HomePlayer/1.0').waitFor();
    await pageShowsNoSecret();
    const { accounts } = (await api('/api/storage/drive-accounts')) as {
      accounts: { id: string; config: Record<string, unknown> }[];
    };
    expect(accounts).toHaveLength(1);
    expect(accounts[0]!.config).toMatchObject({ token: MASK, folderPassword: MASK });

    // Editing shows the stored token only as stars.
    await row.getByTestId('drive-account-edit').click();
    await form.waitFor();
    expect(await form.getByTestId('drive-account-secret').inputValue()).toBe(MASK);
    await form.getByText('Stored and hidden.', { exact: false }).first().waitFor();
    await watched.screenshot('account-edit');
    await pageShowsNoSecret();
    await page.keyboard.press('Escape');
    await form.waitFor({ state: 'hidden' });

    // A DRIVE_A mount choosing the account.
    await page.getByTestId('tab-mounts').click();
    await page.getByTestId('mount-create').click();
    const mountForm = page.getByTestId('mount-form');
    await mountForm.getByTestId('mount-name').fill('Cloud films');
    await mountForm.getByTestId('mount-provider').getByText('DRIVE_A', { exact: true }).click();
    await mountForm.getByTestId('mount-drive-account').click();
    await page.getByRole('option', { name: 'Home drive' }).click();
    await mountForm.getByTestId('mount-drive-root').fill('/Films');
    await mountForm.getByTestId('mount-save').click();
    await mountForm.waitFor({ state: 'hidden' });
    await page.getByTestId('mount-row').filter({ hasText: 'Cloud films' }).getByText('/Films').waitFor();
    const { mounts } = (await api('/api/storage/mounts')) as {
      mounts: { name: string; provider: string; config: Record<string, unknown> }[];
    };
    expect(mounts.find((mount) => mount.name === 'Cloud films')).toMatchObject({
      provider: 'drive_a',
      config: { accountId: accounts[0]!.id, root: '/Films' },
    });
    // The mount reaches the drive with the stored token.
    await page.getByTestId('mount-row').filter({ hasText: 'Cloud films' }).getByTestId('mount-check').click();
    await page.getByText('Cloud films answers.').waitFor();
    await pageShowsNoSecret();

    // The user's DRIVE_A play mode: proxied by default, set to redirect (302).
    await page.goto(`${install.entrance}/console/users/${viewerId}`);
    await settled(page);
    expect(await page.getByTestId('drive-a-proxy').isChecked()).toBe(true);
    await page.getByTestId('drive-a-redirect').check();
    await page.getByTestId('user-profile-save').click();
    await expect
      .poll(
        async () =>
          ((await api(`/api/auth/admin/users/${viewerId}`)) as { driveAPlayMode: string }).driveAPlayMode,
      )
      .toBe('redirect');
    await page.reload();
    await settled(page);
    expect(await page.getByTestId('drive-a-redirect').isChecked()).toBe(true);
    await watched.screenshot('user-redirect');

    const bodies = await Promise.all(answers);
    expect(bodies.length).toBeGreaterThan(5);
    expect(bodies.filter((body) => body.includes(TOKEN) || body.includes(FOLDER_PASSWORD))).toEqual([]);
    expect(await page.getByTestId('error-alert').count()).toBe(0);
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  }, 480_000);

  it('offers the DRIVE_A mount for multithread download on the node cache page and saves its parameters', async () => {
    const watched = await openPage(browser, 'web-drives-threads');
    const { page } = watched;
    await watched.context.addInitScript(() => localStorage.setItem('svc.language', 'en'));
    await signIn(page, install.entrance, 'console', ADMIN.username, ADMIN.password);
    const { mounts } = (await api('/api/storage/mounts')) as { mounts: { id: string; name: string }[] };
    const mountId = mounts.find((mount) => mount.name === 'Cloud films')!.id;

    await page.goto(`${install.entrance}/console/cache/node-local-play-agent`);
    await settled(page);
    const card = page.getByTestId('cache-threads');
    const row = card.getByTestId(`threads-row-${mountId}`);
    await row.getByText('Cloud films').waitFor();
    await row.getByText('DRIVE_A', { exact: true }).waitFor();
    await card.getByLabel('Multithread download for Cloud films').check({ force: true });
    await card.getByLabel('Threads for Cloud films').fill('6');
    await card.getByLabel('Chunk size of Cloud films (MB)').fill('2');
    await card.getByTestId('threads-save').click();
    await expect
      .poll(
        async () =>
          (
            (await api('/api/config/nodes/node-local-play-agent/cache-config')) as {
              vfs: { driveThreads: unknown[] };
            }
          ).vfs.driveThreads,
      )
      .toEqual([{ driveId: mountId, threads: 6, chunkSizeBytes: 2 * 1024 * 1024 }]);
    await page.reload();
    await settled(page);
    expect(await card.getByLabel('Threads for Cloud films').inputValue()).toBe('6');
    await watched.screenshot('cache-threads');
    expect(await page.getByTestId('error-alert').count()).toBe(0);
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  }, 240_000);

  it('refuses to delete an account a mount uses, then deletes the mount and the account', async () => {
    const watched = await openPage(browser, 'web-drives-delete');
    const { page } = watched;
    await watched.context.addInitScript(() => localStorage.setItem('svc.language', 'en'));
    await signIn(page, install.entrance, 'console', ADMIN.username, ADMIN.password);

    // The account a mount still uses is refused with the reason and kept; the mount, then the account, go
    // once confirmed.
    await page.goto(`${install.entrance}/console/storage/drive-accounts`);
    await settled(page);
    const accountRow = page.getByTestId('drive-account-row').filter({ hasText: 'Home drive' });
    await accountRow.getByTestId('drive-account-delete').click();
    const accountDialog = page.getByRole('dialog', { name: 'Delete the drive account?' });
    await accountDialog.getByText('"Home drive"', { exact: false }).waitFor();
    await accountDialog.getByTestId('confirm-button').click();
    await accountDialog.getByText('Mounts still use this drive account; remove them first.').waitFor();
    await accountDialog.getByRole('button', { name: 'Cancel' }).click();
    await accountDialog.waitFor({ state: 'hidden' });
    await accountRow.waitFor();

    await page.getByTestId('tab-mounts').click();
    const mountRow = page.getByTestId('mount-row').filter({ hasText: 'Cloud films' });
    await mountRow.getByTestId('mount-delete').click();
    const mountDialog = page.getByRole('dialog', { name: 'Delete the mount?' });
    await mountDialog.getByTestId('confirm-button').click();
    await page.getByText('The mount Cloud films was deleted.').waitFor();
    await mountRow.waitFor({ state: 'detached' });

    await page.getByTestId('tab-drive-accounts').click();
    await accountRow.getByTestId('drive-account-delete').click();
    await accountDialog.getByTestId('confirm-button').click();
    await page.getByText('The drive account Home drive was deleted.').waitFor();
    await page.getByTestId('drive-accounts-empty').waitFor();
    expect(((await api('/api/storage/drive-accounts')) as { accounts: unknown[] }).accounts).toEqual([]);

    // The refused deletion is a 409 the browser logs; nothing else may be.
    expect(watched.problems.filter((problem) => !problem.includes('409'))).toEqual([]);
    await watched.context.close();
  }, 240_000);
});
