import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage, type WatchedPage } from './support/browser.js';
import { callApi, startStandalone, type RunningInstall } from './support/install.js';
import { settled, signIn } from './support/ui.js';

const ADMIN = { username: 'root', password: 'root-password-1' };
/** A zone far from Shanghai, so a time shown in the browser's zone would read differently. */
const BROWSER_ZONE = 'America/New_York';

/** HH:MM:SS of the instant in Shanghai (UTC+8 all year). */
const shanghaiClock = (iso: string) => new Date(Date.parse(iso) + 8 * 3600_000).toISOString().slice(11, 19);
const browserClock = (iso: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: BROWSER_ZONE, timeStyle: 'medium' }).format(new Date(iso));

/**
 * Forms and times in Chromium against the real program: a refusal shows the server's own sentence under
 * the translated headline, validation speaks to people in both languages, and times are shown in the one
 * zone the page names, whatever the browser's zone.
 */
describe('forms and times', () => {
  let install: RunningInstall;
  let browser: Browser;
  // A folder that surely does not exist: inside a temp folder removed right away.
  const gone = mkdtempSync(path.join(tmpdir(), 'svc-web-forms-'));
  const missingFolder = path.join(gone, 'not-there');
  rmSync(gone, { recursive: true, force: true });

  beforeAll(async () => {
    [install, browser] = await Promise.all([startStandalone(), launchChromium()]);
    await callApi(install.entrance, 'POST', '/api/auth/setup/admin', { body: ADMIN });
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await install?.stop();
  });

  async function openConsole(language: 'en' | 'zh', page: string): Promise<WatchedPage> {
    const watched = await openPage(browser, `web-forms-${language}`, { timezoneId: BROWSER_ZONE });
    await watched.context.addInitScript((lang) => localStorage.setItem('svc.language', lang), language);
    await signIn(watched.page, install.entrance, 'console', ADMIN.username, ADMIN.password);
    await watched.page.getByTestId(`nav-${page}`).click();
    await watched.page.waitForURL(new RegExp(`/console/${page}$`));
    await settled(watched.page);
    return watched;
  }

  it.each([
    { language: 'en', headline: 'Some values are not valid.' },
    { language: 'zh', headline: '部分输入不正确。' },
  ] as const)(
    'a mount on a missing folder shows the server’s sentence naming it ($language)',
    async (run) => {
      const watched = await openConsole(run.language, 'storage');
      const { page } = watched;
      await page.getByTestId('mount-create').click();
      await page.getByTestId('mount-name').fill(`nowhere-${run.language}`);
      await page.getByTestId('mount-root').fill(missingFolder);
      await page.getByTestId('mount-save').click();
      const alert = page.getByTestId('mount-form').getByTestId('error-alert');
      await alert.waitFor();
      expect(await alert.innerText()).toContain(run.headline);
      const explanation = await alert.getByTestId('error-explanation').innerText();
      expect(explanation).toContain(missingFolder);
      expect(explanation).toContain('does not exist');
      await watched.screenshot(`mount-refused-${run.language}`);
      expect(watched.problems.filter((line) => !line.includes('400'))).toEqual([]);
      await watched.context.close();
    },
  );

  it.each([
    { language: 'en', sentence: 'Enter at least 8 characters' },
    { language: 'zh', sentence: '请至少输入 8 个字符' },
  ] as const)('a too short password gets a sentence for people ($language)', async (run) => {
    const watched = await openConsole(run.language, 'users');
    const { page } = watched;
    await page.getByTestId('user-create-button').click();
    const form = page.getByTestId('user-create-form');
    await page.getByTestId('user-form-username').fill(`short-${run.language}`);
    await page.getByTestId('user-form-password').fill('short');
    await page.getByTestId('user-form-password-repeat').fill('short');
    await page.getByTestId('user-create-submit').click();
    await form.getByText(run.sentence, { exact: true }).waitFor();
    expect(await form.innerText()).not.toMatch(/Too small|expected string|>=/);
    await watched.screenshot(`password-too-short-${run.language}`);
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  });

  it('shows times in Asia/Shanghai with the zone named, not in the browser’s zone', async () => {
    const login = await callApi(install.entrance, 'POST', '/api/auth/login', {
      body: { ...ADMIN, client: 'console' },
    });
    const users = await callApi(install.entrance, 'GET', '/api/auth/admin/users', {
      headers: { 'x-admin-token': String(login.body.adminToken) },
    });
    const root = (users.body.items as { username: string; createdAt: string }[]).find(
      (user) => user.username === ADMIN.username,
    );
    expect(root).toBeDefined();
    const createdAt = root?.createdAt ?? '';
    // The check means something only where the two zones read differently (they always do: 12 or 13 h apart).
    expect(shanghaiClock(createdAt)).not.toBe(browserClock(createdAt));

    const watched = await openConsole('en', 'users');
    const { page } = watched;
    expect(await page.getByTestId('time-zone-note').innerText()).toBe('Times in Asia/Shanghai (UTC+8)');
    const row = page.locator(`[data-testid="user-row"][data-username="${ADMIN.username}"]`);
    const text = await row.innerText();
    expect(text).toContain(shanghaiClock(createdAt));
    expect(text).not.toContain(browserClock(createdAt));
    await watched.screenshot('users-times');
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  });
});
