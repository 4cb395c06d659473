import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium, as installed by `apt-get install chromium` (CI installs it; a missing one fails). */
export const CHROMIUM = process.env.SVC_TEST_CHROMIUM ?? '/usr/bin/chromium';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
export const SCREENSHOT_DIR = path.join(repoRoot, 'test-results', 'screenshots');

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors, uncaught exceptions and failed same-origin requests seen so far. */
  problems: string[];
  /** Saves a full-page screenshot as test-results/screenshots/<suite>/<nn>-<name>.png. */
  screenshot(name: string): Promise<string>;
}

/**
 * A fresh browser context (own storage) whose console errors and page errors are collected, so a test
 * can assert that a page rendered without any.
 */
export async function openPage(
  browser: Browser,
  suite: string,
  options: {
    viewport?: { width: number; height: number };
    colorScheme?: 'light' | 'dark';
    /** The browser's own time zone (IANA name); the machine's when not given. */
    timezoneId?: string;
    /** Accept the test's self-signed certificates (a real reverse proxy in front of the install). */
    ignoreHTTPSErrors?: boolean;
  } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 860 },
    colorScheme: options.colorScheme ?? 'light',
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
    ...(options.ignoreHTTPSErrors ? { ignoreHTTPSErrors: true } : {}),
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  const folder = path.join(SCREENSHOT_DIR, suite);
  mkdirSync(folder, { recursive: true });
  let shots = 0;
  return {
    page,
    context,
    problems,
    async screenshot(name) {
      shots += 1;
      const file = path.join(
        folder,
        `${String(shots).padStart(2, '0')}-${name.replace(/[^\w.-]+/g, '_')}.png`,
      );
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
  };
}
