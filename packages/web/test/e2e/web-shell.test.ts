import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from './support/browser.js';
import { callApi, startStandalone, type RunningInstall } from './support/install.js';
import { setUpFirstAdmin, settled, signIn } from './support/ui.js';

/**
 * The shell against the real program: first-run set-up, sign-in to both apps, navigation by
 * permission, language and theme switches, branding in the tab title, sign-out.
 */
describe('web shell in Chromium', () => {
  let install: RunningInstall;
  let browser: Browser;

  beforeAll(async () => {
    [install, browser] = await Promise.all([startStandalone(), launchChromium()]);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await install?.stop();
  });

  it('sets up the first administrator, signs in, switches language and theme, signs out', async () => {
    const watched = await openPage(browser, 'web-shell');
    const { page } = watched;
    await setUpFirstAdmin(page, install.entrance, 'root', 'root-password-1');
    await watched.screenshot('console-login-after-setup');
    // The set-up page is gone once an administrator exists.
    expect((await callApi(install.entrance, 'GET', '/api/auth/setup/status')).body).toEqual({
      adminExists: true,
    });

    await signIn(page, install.entrance, 'console', 'root', 'root-password-1');
    await settled(page);
    expect(await page.title()).toMatch(/SVC Media$/);
    for (const menu of [
      'dashboard',
      'nodes',
      'users',
      'libraries',
      'storage',
      'license',
      'reports',
      'audit',
    ]) {
      await expect.poll(() => page.getByTestId(`nav-${menu}`).isVisible()).toBe(true);
    }
    await watched.screenshot('console-first-page');

    await page.getByTestId('nav-audit').click();
    await page.getByTestId('audit-table').waitFor();
    await expect.poll(() => page.getByTestId('audit-table').innerText()).toContain('setup.admin');

    await page.getByTestId('language-switch').getByText('中文').click();
    await page.getByText('审计日志').first().waitFor();
    expect(await page.title()).toContain('审计日志');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');

    const scheme = () =>
      page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'));
    const before = await scheme();
    await page.getByTestId('theme-toggle').click();
    expect(await scheme()).not.toBe(before);
    await watched.screenshot('console-audit-zh-toggled-theme');

    // Reload keeps language, theme and session.
    await page.reload();
    await page.getByText('审计日志').first().waitFor();
    expect(await scheme()).not.toBe(before);

    await page.getByTestId('user-menu').click();
    await page.getByTestId('sign-out').click();
    await page.waitForURL(/\/console\/login(\?|$)/);
    await page.getByTestId('sign-in-form').waitFor();
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  });

  it('shows a user without console permissions only the portal, and a wrong password in the user’s language', async () => {
    const login = await callApi(install.entrance, 'POST', '/api/auth/login', {
      body: { username: 'root', password: 'root-password-1', client: 'console' },
    });
    const admin = { 'x-admin-token': String(login.body.adminToken) };
    expect(
      (
        await callApi(install.entrance, 'POST', '/api/auth/admin/users', {
          headers: admin,
          body: { username: 'viewer', password: 'viewer-password-1' },
        })
      ).status,
    ).toBe(201);

    const watched = await openPage(browser, 'web-shell-portal', { viewport: { width: 390, height: 844 } });
    const { page } = watched;
    await page.goto(`${install.entrance}/console/login`);
    const form = page.getByTestId('sign-in-form');
    await form.locator('input[name="username"]').fill('viewer');
    await form.locator('input[name="password"]').fill('viewer-password-1');
    await form.locator('button[type="submit"]').click();
    await expect.poll(() => page.getByTestId('error-alert').innerText()).toContain('no console permissions');

    await page.getByTestId('language-switch').getByText('中文').click();
    await form.locator('input[name="password"]').fill('wrong-password-1');
    await form.locator('button[type="submit"]').click();
    await page.getByText('用户名或密码错误').waitFor();
    await watched.screenshot('console-login-refused-zh-phone');

    await signIn(page, install.entrance, 'portal', 'viewer', 'viewer-password-1');
    await settled(page);
    await watched.screenshot('portal-first-page-phone');
    // Navigation sits behind the burger on a phone.
    const offScreen = async () => {
      const box = await page.getByTestId('nav-routes').boundingBox();
      return box === null || box.x + box.width <= 0;
    };
    expect(await offScreen()).toBe(true);
    await page.getByRole('button', { name: '展开或收起导航' }).click();
    await page.waitForFunction(() => {
      const box = document.querySelector('[data-testid="nav-routes"]')?.getBoundingClientRect();
      return box !== undefined && box.x >= 0;
    });
    expect(await offScreen()).toBe(false);
    // 401 from the login attempts above are expected network answers, not console errors of the app.
    expect(
      watched.problems.filter((problem) => !problem.includes('401') && !problem.includes('403')),
    ).toEqual([]);
    await watched.context.close();
  });
});
