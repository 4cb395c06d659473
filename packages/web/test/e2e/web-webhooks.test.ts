import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { DEFAULT_OUTBOUND_WEBHOOK_BODIES, OUTBOUND_WEBHOOK_MASK } from '@svc/contracts';
import { mediaFixtures } from '../../../server/test/support/media-fixtures.js';
import { launchChromium, openPage, SCREENSHOT_DIR, type WatchedPage } from './support/browser.js';
import { callApi, startStandalone, type RunningInstall } from './support/install.js';
import { settled, signIn } from './support/ui.js';

const ADMIN = { username: 'root', password: 'root-password-1' };
/** The test event's texts (server: outbound-webhooks/template.ts, sampleEvent). */
const SAMPLE_TITLE = 'The "Sample" Show & Co. — Ünïcode\\Test';

interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP receiver on 127.0.0.1 that records every request and answers with `status`. */
async function startReceiver(status: number) {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(status, { 'content-type': 'text/plain' });
      response.end(status < 300 ? 'received' : 'receiver failed on purpose');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Mantine's switches hide their checkbox visually; a click on it toggles the switch as a user's would. */
const toggle = (page: Page, testId: string) => page.getByTestId(testId).dispatchEvent('click');

async function choose(page: Page, testId: string, option: string) {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/**
 * Besides the full page: the section, or the editor dialog while it is open, alone (the full-page image of
 * the long settings page shows them small).
 */
async function shoot(watched: WatchedPage, name: string) {
  await watched.screenshot(name);
  const dialog = watched.page.getByRole('dialog');
  const part = (await dialog.count()) > 0 ? dialog.first() : watched.page.getByTestId('outbound-webhooks');
  await part.screenshot({ path: path.join(SCREENSHOT_DIR, 'web-webhooks', `part-${name}.png`) });
}

const endpointRow = (page: Page, name: string) =>
  page.locator(`[data-testid="webhook-row"][data-webhook-name="${name}"]`);
const deliveryRows = (page: Page, endpoint: string, status?: string) =>
  page.locator(
    `[data-testid="webhook-delivery-row"][data-endpoint="${endpoint}"]${status ? `[data-status="${status}"]` : ''}`,
  );

/**
 * The outbound webhooks of the settings page in Chromium against the real program and real receivers:
 * create through the editor (variable picker, sensitive header, private network), masked after saving,
 * test sends, real deliveries of a scan with retries, edit keeping the secret, delete.
 */
describe('outbound webhooks on the settings page', () => {
  let install: RunningInstall;
  let browser: Browser;
  let adminHeaders: Record<string, string>;
  let libraryId: string;
  let ok: Awaited<ReturnType<typeof startReceiver>>;
  let failing: Awaited<ReturnType<typeof startReceiver>>;

  const call = async (method: string, route: string, body?: unknown) => {
    const answer = await callApi(install.entrance, method, route, { headers: adminHeaders, body });
    if (answer.status >= 300)
      throw new Error(`${method} ${route} → ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };

  async function openSettings(
    language: 'en' | 'zh',
    scheme: 'light' | 'dark',
    account = ADMIN,
  ): Promise<WatchedPage> {
    const watched = await openPage(browser, 'web-webhooks', { colorScheme: scheme });
    await watched.context.addInitScript(
      ([chosenLanguage, chosenScheme]) => {
        localStorage.setItem('svc.language', chosenLanguage);
        localStorage.setItem('svc.color-scheme', chosenScheme);
      },
      [language, scheme] as const,
    );
    await signIn(watched.page, install.entrance, 'console', account.username, account.password);
    await watched.page.getByTestId('nav-settings').click();
    await watched.page.waitForURL(/\/console\/settings$/);
    await watched.page.getByTestId('outbound-webhooks').waitFor();
    await settled(watched.page);
    return watched;
  }

  beforeAll(async () => {
    const fixtures = await mediaFixtures();
    [install, browser, ok, failing] = await Promise.all([
      startStandalone(),
      launchChromium(),
      startReceiver(200),
      startReceiver(500),
    ]);
    await callApi(install.entrance, 'POST', '/api/auth/setup/admin', { body: ADMIN });
    const login = await callApi(install.entrance, 'POST', '/api/auth/login', {
      body: { ...ADMIN, client: 'console' },
    });
    adminHeaders = { 'x-admin-token': String(login.body.adminToken) };
    // A library to subscribe to, not scanned yet: its scan later is what sends real events.
    const mount = await call('POST', '/api/storage/mounts', {
      name: 'media',
      provider: 'local',
      config: { root: fixtures.library },
    });
    const library = await call('POST', '/api/media/libraries', {
      name: 'Films',
      type: 'movies',
      sources: [{ nodeId: 'node-local-storage', mountId: mount.id, path: '/Movies' }],
      scan: false,
    });
    libraryId = String(library.id);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await install?.stop();
    await ok?.close();
    await failing?.close();
  });

  it(
    'creates, masks, tests, delivers, edits and deletes endpoints (en, light)',
    { timeout: 300_000 },
    async () => {
      const watched = await openSettings('en', 'light');
      const { page } = watched;
      await page.getByTestId('webhooks-empty').waitFor();
      await page.getByTestId('webhook-deliveries-empty').waitFor();

      // --- The first endpoint, through the editor.
      await page.getByTestId('webhook-create').click();
      const form = page.getByTestId('webhook-form');
      await form.waitFor();
      const body = form.getByTestId('webhook-body');
      const url = form.getByTestId('webhook-url');
      expect(await body.inputValue()).toBe(DEFAULT_OUTBOUND_WEBHOOK_BODIES['application/json']);
      expect(await form.getByTestId('webhook-method').inputValue()).toBe('POST');
      expect(await page.getByTestId('webhook-editor-unsaved').count()).toBe(0);

      await form.getByTestId('webhook-name').fill('Receiver');
      await expect.poll(() => page.getByTestId('webhook-editor-unsaved').count()).toBe(1);
      // An untouched body follows the Content-Type.
      await choose(page, 'webhook-content-type', 'Text (text/plain)');
      await expect.poll(() => body.inputValue()).toBe(DEFAULT_OUTBOUND_WEBHOOK_BODIES['text/plain']);
      await choose(page, 'webhook-content-type', 'JSON (application/json)');
      await expect.poll(() => body.inputValue()).toBe(DEFAULT_OUTBOUND_WEBHOOK_BODIES['application/json']);

      // A variable picked into the URL at its end, then one into the body at the cursor.
      await url.fill(`${ok.url}/hook?src=svc&title=`);
      await url.focus();
      await page.getByTestId('webhook-variable-picker').click();
      await expect.poll(() => page.getByTestId('webhook-variable-option').count()).toBe(26);
      await expect.poll(() => page.getByTestId('webhook-variable-target').innerText()).toContain('URL');
      await page
        .locator('[data-testid="webhook-variable-option"][data-variable="urlencode.media.title"]')
        .click();
      await expect
        .poll(() => url.inputValue())
        .toBe(`${ok.url}/hook?src=svc&title={{urlencode.media.title}}`);

      await body.fill('{"name": "", "kind": "{{event.type}}"}');
      await body.focus();
      await body.evaluate((element: HTMLTextAreaElement) => element.setSelectionRange(10, 10));
      await page.getByTestId('webhook-variable-picker').click();
      await expect.poll(() => page.getByTestId('webhook-variable-target').innerText()).toContain('Body');
      await page.locator('[data-testid="webhook-variable-option"][data-variable="media.title"]').click();
      await expect
        .poll(() => body.inputValue())
        .toBe('{"name": "{{media.title}}", "kind": "{{event.type}}"}');

      // Loopback needs the private-network switch, which warns.
      expect(await page.getByTestId('webhook-private-warning').count()).toBe(0);
      await toggle(page, 'webhook-allow-private');
      await page.getByTestId('webhook-private-warning').waitFor();

      // A sensitive header, and a blank query row that is not sent.
      await form.getByTestId('webhook-headers-add').click();
      await form.getByTestId('webhook-headers-key').fill('X-Api-Key');
      await form.getByTestId('webhook-headers-value').fill('secret-123');
      await form.getByTestId('webhook-headers-sensitive').check();
      await form.getByTestId('webhook-query-add').click();

      await choose(page, 'webhook-libraries', 'Films');
      await form.getByTestId('webhook-name').click();
      await shoot(watched, 'en-light-editor');
      await form.getByTestId('webhook-save').click();
      await expect.poll(() => page.getByTestId('webhook-form').count()).toBe(0);
      const receiverRow = endpointRow(page, 'Receiver');
      await receiverRow.waitFor();
      expect(await receiverRow.getByTestId('webhook-row-libraries').innerText()).toBe('Films');

      const { endpoints } = (await call('GET', '/api/media/outbound-webhooks')) as {
        endpoints: { id: string; name: string; headers: unknown[]; query: unknown[]; libraryIds: string[] }[];
      };
      expect(endpoints).toHaveLength(1);
      expect(endpoints[0]!.headers).toEqual([
        { key: 'X-Api-Key', value: OUTBOUND_WEBHOOK_MASK, sensitive: true },
      ]);
      expect(endpoints[0]!.query).toEqual([]);
      expect(endpoints[0]!.libraryIds).toEqual([libraryId]);

      // After saving, the editor shows the header masked; closing it unchanged asks nothing.
      await receiverRow.getByTestId('webhook-edit').click();
      const headerValue = page.getByTestId('webhook-form').getByTestId('webhook-headers-value');
      await expect.poll(() => headerValue.inputValue()).toBe(OUTBOUND_WEBHOOK_MASK);
      expect(await page.getByTestId('webhook-editor-unsaved').count()).toBe(0);
      await shoot(watched, 'en-light-editor-masked');
      await page.getByTestId('webhook-form').getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => page.getByTestId('webhook-form').count()).toBe(0);
      expect(await page.getByText('Discard the changes?').count()).toBe(0);

      // --- Test send: the receiver gets the request as configured, with the variables expanded.
      await receiverRow.getByTestId('webhook-test').click();
      const result = page.getByTestId('webhook-test-result');
      await result.waitFor();
      expect(await result.getAttribute('data-ok')).toBe('true');
      expect(await result.getByTestId('webhook-test-http-status').innerText()).toBe('200');
      expect(ok.requests).toHaveLength(1);
      const sent = ok.requests[0]!;
      expect(sent.method).toBe('POST');
      expect(sent.url).toBe(`/hook?src=svc&title=${encodeURIComponent(SAMPLE_TITLE)}`);
      expect(sent.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(sent.headers['x-api-key']).toBe('secret-123');
      expect(JSON.parse(sent.body)).toEqual({ name: SAMPLE_TITLE, kind: 'media.test' });
      const receiverTest = deliveryRows(page, 'Receiver', 'SUCCEEDED');
      await expect.poll(() => receiverTest.count()).toBe(1);
      expect(await receiverTest.getByTestId('webhook-delivery-http-status').innerText()).toBe('200');
      expect(await receiverTest.getByTestId('webhook-delivery-attempts').innerText()).toBe('1 / 1');

      // --- A second endpoint whose receiver fails.
      await page.getByTestId('webhook-create').click();
      await page.getByTestId('webhook-name').fill('Failing');
      await page.getByTestId('webhook-url').fill(`${failing.url}/fail`);
      await toggle(page, 'webhook-allow-private');
      await page.getByTestId('webhook-save').click();
      await expect.poll(() => page.getByTestId('webhook-form').count()).toBe(0);
      const failingRow = endpointRow(page, 'Failing');
      await failingRow.waitFor();
      expect(await failingRow.getByTestId('webhook-row-libraries').innerText()).toBe('All libraries');
      await failingRow.getByTestId('webhook-test').click();
      await expect.poll(() => result.getAttribute('data-ok')).toBe('false');
      expect(await result.getByTestId('webhook-test-http-status').innerText()).toBe('500');
      const failingTest = deliveryRows(page, 'Failing', 'DEAD');
      await expect.poll(() => failingTest.count()).toBe(1);
      expect(await failingTest.getByTestId('webhook-delivery-http-status').innerText()).toBe('500');
      expect(await failingTest.getByTestId('webhook-delivery-error').innerText()).toContain('HTTP 500');
      expect(failing.requests).toHaveLength(1);

      // --- Real events: a scan adds three movies; the receiver gets each, the failing one waits to retry.
      await call('POST', `/api/media/libraries/${libraryId}/scan`, { mode: 'full' });
      const added = () =>
        ok.requests.filter(
          (request) => (JSON.parse(request.body) as { kind?: string }).kind === 'media.added',
        );
      await expect.poll(() => added().length, { timeout: 90_000, interval: 500 }).toBe(3);
      await expect.poll(() => failing.requests.length, { timeout: 30_000 }).toBe(4);
      await page.getByTestId('webhook-deliveries-refresh').click();
      await expect.poll(() => deliveryRows(page, 'Receiver', 'SUCCEEDED').count()).toBe(4);
      const retrying = deliveryRows(page, 'Failing', 'RETRYING');
      await expect.poll(() => retrying.count()).toBe(3);
      expect(await retrying.first().getByTestId('webhook-delivery-attempts').innerText()).toBe('1 / 6');
      expect(await retrying.first().getByTestId('webhook-delivery-http-status').innerText()).toBe('500');
      await shoot(watched, 'en-light-deliveries-retrying');
      // While deliveries wait, the list reads itself again: the second attempt (30 s later) shows unasked.
      await expect
        .poll(() => retrying.first().getByTestId('webhook-delivery-attempts').innerText(), {
          timeout: 75_000,
        })
        .toBe('2 / 6');

      // --- Edit: the masked header is sent back and keeps its secret.
      await receiverRow.getByTestId('webhook-edit').click();
      await page.getByTestId('webhook-name').fill('Receiver edited');
      await page.getByTestId('webhook-save').click();
      await expect.poll(() => page.getByTestId('webhook-form').count()).toBe(0);
      const editedRow = endpointRow(page, 'Receiver edited');
      await editedRow.waitFor();
      await editedRow.getByTestId('webhook-test').click();
      await expect.poll(() => ok.requests.length).toBe(5);
      expect(ok.requests[4]!.headers['x-api-key']).toBe('secret-123');
      await expect.poll(() => deliveryRows(page, 'Receiver edited', 'SUCCEEDED').count()).toBe(5);

      // --- Delete: the warning names the unsent deliveries, which go with the endpoint.
      await failingRow.getByTestId('webhook-delete').click();
      const dialog = page.getByRole('dialog', { name: 'Delete the endpoint?' });
      await dialog.waitFor();
      expect(await dialog.innerText()).toContain('unsent deliveries');
      await dialog.getByTestId('confirm-button').click();
      await expect.poll(() => endpointRow(page, 'Failing').count()).toBe(0);
      await expect.poll(() => deliveryRows(page, 'Failing', 'RETRYING').count()).toBe(0);
      expect(await deliveryRows(page, 'Failing', 'DEAD').count()).toBe(1);
      await shoot(watched, 'en-light-after-delete');
      expect(watched.problems).toEqual([]);
      await watched.context.close();
    },
  );

  it('shows a settings delegate the private-network switch disabled with the reason, and no test send there', async () => {
    const delegate = { username: 'settings-delegate', password: 'delegate-password-1' };
    await call('POST', '/api/auth/admin/users', { ...delegate, permissions: ['settings'] });
    const watched = await openSettings('en', 'light', delegate);
    const { page } = watched;
    // An endpoint an administrator allowed private networks on: no test send, and saving needs the switch off.
    const allowedRow = endpointRow(page, 'Receiver edited');
    await allowedRow.waitFor();
    expect(await allowedRow.getByTestId('webhook-test').isDisabled()).toBe(true);
    await allowedRow.getByTestId('webhook-edit').click();
    const form = page.getByTestId('webhook-form');
    await form.waitFor();
    const allowSwitch = form.getByTestId('webhook-allow-private');
    expect(await allowSwitch.isDisabled()).toBe(false);
    expect(await form.innerText()).toContain('only an administrator may keep it');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.getByTestId('webhook-form').count()).toBe(0);
    // A new endpoint: the switch cannot be switched on.
    await page.getByTestId('webhook-create').click();
    await form.waitFor();
    expect(await allowSwitch.isDisabled()).toBe(true);
    expect(await form.innerText()).toContain('Only administrators may switch this on.');
    await shoot(watched, 'en-light-delegate-editor');
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  });

  it('shows the section in Chinese with the dark theme', async () => {
    const watched = await openSettings('zh', 'dark');
    const { page } = watched;
    await page.getByText('出站 Webhook').first().waitFor();
    await endpointRow(page, 'Receiver edited').waitFor();
    await expect
      .poll(() =>
        deliveryRows(page, 'Receiver edited', 'SUCCEEDED')
          .first()
          .getByTestId('webhook-delivery-status')
          .innerText(),
      )
      .toBe('成功');
    await shoot(watched, 'zh-dark-section');
    await endpointRow(page, 'Receiver edited').getByTestId('webhook-edit').click();
    await page.getByTestId('webhook-form').waitFor();
    await page.getByTestId('webhook-variable-picker').click();
    await expect
      .poll(() =>
        page.locator('[data-testid="webhook-variable-option"][data-variable="media.title"]').innerText(),
      )
      .toContain('电影或剧的标题');
    await shoot(watched, 'zh-dark-editor');
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  });
});
