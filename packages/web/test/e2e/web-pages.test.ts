import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from './support/browser.js';
import { arrangeLibrary } from './support/arrange.js';
import { startStandalone, type RunningInstall } from './support/install.js';
import { settled, signIn } from './support/ui.js';

const ADMIN = { username: 'root', password: 'root-password-1' };
const USER = { username: 'viewer', password: 'viewer-password-1' };
const COMBINATIONS = [
  { language: 'en', scheme: 'light' },
  { language: 'en', scheme: 'dark' },
  { language: 'zh', scheme: 'light' },
  { language: 'zh', scheme: 'dark' },
] as const;

/**
 * Every page of both apps, reached through its menu entry, renders its content without a console error
 * in both languages and both themes (the menus are read from the page, so a new page is covered too).
 */
describe('every page in both languages and both themes', () => {
  let install: RunningInstall;
  let browser: Browser;

  beforeAll(async () => {
    [install, browser] = await Promise.all([startStandalone(), launchChromium()]);
    await arrangeLibrary(install.entrance, ADMIN, USER);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await install?.stop();
  });

  for (const app of ['console', 'portal'] as const) {
    it.each(COMBINATIONS)(`${app} in $language, $scheme`, async ({ language, scheme }) => {
      const watched = await openPage(browser, `pages-${app}-${language}-${scheme}`);
      const { page } = watched;
      await watched.context.addInitScript(
        ([lang, colors]) => {
          localStorage.setItem('svc.language', lang);
          localStorage.setItem('svc.color-scheme', colors);
        },
        [language, scheme] as const,
      );
      const account = app === 'console' ? ADMIN : USER;
      await signIn(page, install.entrance, app, account.username, account.password);
      expect(
        await page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme')),
      ).toBe(scheme);
      const links = await page
        .locator('[data-testid^="nav-"]')
        .evaluateAll((nodes) => nodes.map((node) => (node as HTMLAnchorElement).getAttribute('href') ?? ''));
      expect(links.length).toBeGreaterThanOrEqual(app === 'console' ? 7 : 3);
      for (const href of links) {
        await page.locator(`[data-testid^="nav-"][href="${href}"]`).click();
        await page.waitForURL((url) => url.pathname.startsWith(href));
        await settled(page);
        // The page rendered something of its own below the header.
        await expect
          .poll(async () => (await page.locator('main').innerText()).trim().length, {
            message: `${href} shows content`,
          })
          .toBeGreaterThan(0);
        await expect
          .poll(() => page.getByTestId('error-alert').count(), { message: `${href} shows no error` })
          .toBe(0);
        await watched.screenshot(href.replaceAll('/', '_'));
      }
      expect(watched.problems).toEqual([]);
      await watched.context.close();
    });
  }
});
