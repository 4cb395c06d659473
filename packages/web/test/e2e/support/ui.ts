import type { Page } from 'playwright-core';

/** Fills the first-run form and creates the administrator through the page. */
export async function setUpFirstAdmin(page: Page, entrance: string, username: string, password: string) {
  await page.goto(`${entrance}/console`);
  await page.waitForURL(/\/setup$/);
  const form = page.getByTestId('setup-form');
  await form.locator('input[name="username"]').fill(username);
  await form.locator('input[name="password"]').fill(password);
  await form.locator('input[name="passwordRepeat"]').fill(password);
  await form.locator('button[type="submit"]').click();
  await page.waitForURL(/\/console\/login$/);
}

export async function signIn(
  page: Page,
  entrance: string,
  app: 'console' | 'portal',
  username: string,
  password: string,
) {
  await page.goto(`${entrance}/${app}/login`);
  const form = page.getByTestId('sign-in-form');
  await form.locator('input[name="username"]').fill(username);
  await form.locator('input[name="password"]').fill(password);
  await form.locator('button[type="submit"]').click();
  await page.waitForURL(new RegExp(`/${app}/(?!login)[a-z]`));
}

/** Waits until no skeleton is shown (the page's queries answered). */
export async function settled(page: Page, timeoutMs = 15_000) {
  await page.waitForLoadState('networkidle', { timeout: timeoutMs }).catch(() => undefined);
  await page
    .getByTestId('loading')
    .first()
    .waitFor({ state: 'detached', timeout: timeoutMs })
    .catch(() => undefined);
}
