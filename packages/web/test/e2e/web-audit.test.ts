import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from './support/browser.js';
import { callApi, startStandalone, type RunningInstall } from './support/install.js';
import { settled, signIn } from './support/ui.js';

const ADMIN = { username: 'root', password: 'root-password-1' };
const PHONE = { width: 390, height: 844 };

/**
 * The audit page in Chromium at a phone's width against the real program: entries as readable fields
 * (a before → after table, not JSON), the filter by action from the list of translated names, and the
 * filter by actor.
 */
describe('audit page', () => {
  let install: RunningInstall;
  let browser: Browser;

  beforeAll(async () => {
    [install, browser] = await Promise.all([startStandalone(), launchChromium()]);
    await callApi(install.entrance, 'POST', '/api/auth/setup/admin', { body: ADMIN });
    const login = await callApi(install.entrance, 'POST', '/api/auth/login', {
      body: { ...ADMIN, client: 'console' },
    });
    const headers = { 'x-admin-token': String(login.body.adminToken) };
    const put = async (route: string, body: unknown) =>
      expect((await callApi(install.entrance, 'PUT', route, { headers, body })).status).toBe(200);
    await put('/api/auth/admin/branding', { systemName: 'Audited Media' });
    await put('/api/config/system-settings/mcp', { enabled: true });
    const failed = await callApi(install.entrance, 'POST', '/api/auth/login', {
      body: { username: 'mallory', password: 'not-the-password', client: 'console' },
    });
    expect(failed.status).toBe(401);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await install?.stop();
  });

  it('shows changes as fields, filters by action and by actor, and fits 390 px', async () => {
    const watched = await openPage(browser, 'web-audit', { viewport: PHONE });
    const { page } = watched;
    await signIn(page, install.entrance, 'console', ADMIN.username, ADMIN.password);
    await page.goto(`${install.entrance}/console/audit`);
    await page.getByTestId('audit-table').waitFor();
    await settled(page);
    const entries = page.getByTestId('audit-entry');
    await expect.poll(() => entries.count()).toBeGreaterThanOrEqual(4);
    // Details are fields, never raw JSON.
    expect(await page.getByTestId('audit-table').innerText()).not.toContain('{"');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await watched.screenshot('phone-all');

    // Filter by action, chosen by its name from the list.
    await page.getByTestId('audit-action-filter').click();
    await page.getByRole('option', { name: 'System name changed' }).click();
    await expect.poll(() => entries.count()).toBe(1);
    const branding = entries.first();
    expect(await branding.getAttribute('data-action')).toBe('settings.branding');
    const changes = branding.getByTestId('audit-changes');
    // The name was never saved before: its before is empty.
    const row = changes.locator('tbody tr').first();
    expect(await row.locator('td').allInnerTexts()).toEqual(['systemName', '—', 'Audited Media']);
    expect(await changes.locator('thead th').allInnerTexts()).toEqual(['Field', 'Before', 'After']);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await watched.screenshot('phone-filter-action');

    // Filter by actor: the name tried in a failed sign-in.
    // The filters live in the page: a reload starts without them.
    await page.reload();
    await page.getByTestId('audit-table').waitFor();
    await expect.poll(() => entries.count()).toBeGreaterThanOrEqual(4);
    await page.getByTestId('audit-actor-filter').fill('mallory');
    await expect.poll(() => entries.count()).toBe(1);
    expect(await entries.first().getAttribute('data-action')).toBe('auth.login-failed');
    expect(await entries.first().innerText()).toContain('Sign-in failed');
    await watched.screenshot('phone-filter-actor');

    // The names follow the interface language.
    await page.evaluate(() => localStorage.setItem('svc.language', 'zh'));
    await page.reload();
    await page.getByTestId('audit-table').waitFor();
    await settled(page);
    await page.getByTestId('audit-actor-filter').fill('root');
    // root's own three: set-up, system name and MCP switch (not mallory's failure).
    await expect.poll(() => entries.count()).toBe(3);
    await expect.poll(async () => page.getByTestId('audit-table').innerText()).toContain('修改系统名称');
    expect(await page.getByTestId('audit-table').innerText()).toContain('修改前');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await watched.screenshot('phone-zh');
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  });
});
