import { crc32, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openPage, type WatchedPage } from './support/browser.js';
import { callApi, startStandalone, type RunningInstall } from './support/install.js';
import { settled, signIn } from './support/ui.js';

const ADMIN = { username: 'root', password: 'root-password-1' };

/** A real 2×2 RGBA PNG (signature, IHDR, IDAT, IEND with their CRCs). */
function tinyPng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const row = [0, 255, 0, 0, 255, 0, 0, 255, 255];
  const pixels = deflateSync(Buffer.from([...row, ...row]));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Mantine's switches hide their checkbox visually; a click on it toggles the switch as a user's would. */
const toggle = (page: Page, testId: string) => page.getByTestId(testId).dispatchEvent('click');
const unsaved = (page: Page, card: string) => page.getByTestId(`${card}-unsaved`);

async function choose(page: Page, testId: string, option: RegExp) {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: option }).first().click();
}

/**
 * The system configuration page in Chromium against the real program: every card changed, marked unsaved,
 * saved on its own and read back from the API; the logo upload; the inbound token shown once; the guard
 * against leaving with unsaved changes.
 */
describe('system settings page', () => {
  let install: RunningInstall;
  let browser: Browser;
  let adminHeaders: Record<string, string>;
  let playAgentNodeId: string;

  const api = async (route: string) => {
    const answer = await callApi(install.entrance, 'GET', route, { headers: adminHeaders });
    expect(answer.status, route).toBe(200);
    return answer.body;
  };

  async function openSettings(
    options: { language?: 'en' | 'zh'; scheme?: 'light' | 'dark'; width?: number } = {},
  ): Promise<WatchedPage> {
    const watched = await openPage(browser, 'web-settings', {
      colorScheme: options.scheme ?? 'light',
      ...(options.width ? { viewport: { width: options.width, height: 844 } } : {}),
    });
    await watched.context.addInitScript(
      ([language, scheme]) => {
        localStorage.setItem('svc.language', language);
        localStorage.setItem('svc.color-scheme', scheme);
      },
      [options.language ?? 'en', options.scheme ?? 'light'] as const,
    );
    await signIn(watched.page, install.entrance, 'console', ADMIN.username, ADMIN.password);
    // At a phone's width the menu hides behind the burger: open the page by its address there.
    if (options.width) await watched.page.goto(`${install.entrance}/console/settings`);
    else await watched.page.getByTestId('nav-settings').click();
    await watched.page.waitForURL(/\/console\/settings$/);
    // The page's chunk loads on the first visit; then its cards' queries answer.
    await watched.page.getByTestId('settings-page').waitFor();
    await settled(watched.page);
    return watched;
  }

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
    playAgentNodeId = playAgent.nodeId;
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await install?.stop();
  });

  it('saves every card on its own; the server holds each new value', async () => {
    const watched = await openSettings();
    const { page } = watched;
    await watched.screenshot('en-light-before');

    // System name: immediate, also in the shell's header.
    await page.getByTestId('system-name-input').fill('Media Hall');
    await expect.poll(() => unsaved(page, 'systemName').count()).toBe(1);
    await page.getByTestId('systemName-save').click();
    await expect.poll(async () => (await api('/api/auth/admin/branding')).systemName).toBe('Media Hall');
    await expect.poll(() => unsaved(page, 'systemName').count()).toBe(0);
    await expect.poll(() => page.title()).toContain('Media Hall');

    // Web playback (default on).
    expect(await page.getByTestId('web-player-switch').isChecked()).toBe(true);
    await toggle(page, 'web-player-switch');
    await expect.poll(() => unsaved(page, 'webPlayer').count()).toBe(1);
    await page.getByTestId('webPlayer-save').click();
    await expect.poll(async () => (await api('/api/auth/branding')).webPlayerEnabled).toBe(false);
    await expect.poll(() => unsaved(page, 'webPlayer').count()).toBe(0);

    // Default traffic quotas: a total of 5 GB and a quota on the built-in play-agent.
    const quota = page.getByTestId('card-defaultQuota');
    await toggle(page, 'quota-total-limit');
    await quota.getByTestId('quota-total-amount').fill('5');
    await quota.getByTestId('quota-route-add').click();
    await choose(page, 'quota-route-select', new RegExp(playAgentNodeId));
    await quota.getByTestId('quota-route-amount').fill('750');
    await expect.poll(() => unsaved(page, 'defaultQuota').count()).toBe(1);
    await page.getByTestId('defaultQuota-save').click();
    await expect
      .poll(() => api('/api/auth/admin/traffic-quotas/default-policy'))
      .toEqual({
        total: { enabled: true, amount: 5, unit: 'GB', period: 'month' },
        routes: [
          { kind: 'node', id: playAgentNodeId, enabled: true, amount: 750, unit: 'GB', period: 'month' },
        ],
      });
    await expect.poll(() => unsaved(page, 'defaultQuota').count()).toBe(0);

    // Default node access: a list warns until it holds a play-agent node; mode and list saved together.
    await page.getByTestId('node-access-mode-ALLOW_LIST').check();
    await expect.poll(() => page.getByTestId('node-access-advice-NO_PLAY_AGENT_NODE').count()).toBe(1);
    await choose(page, 'node-access-nodes', new RegExp(playAgentNodeId));
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('node-access-advice-NO_PLAY_AGENT_NODE').count()).toBe(0);
    await expect.poll(() => unsaved(page, 'defaultNodeAccess').count()).toBe(1);
    await page.getByTestId('defaultNodeAccess-save').click();
    await expect
      .poll(async () => {
        const { mode, entries } = await api('/api/auth/admin/node-access-policy');
        return { mode, entries };
      })
      .toEqual({ mode: 'ALLOW_LIST', entries: [{ kind: 'node', id: playAgentNodeId }] });
    await expect.poll(() => unsaved(page, 'defaultNodeAccess').count()).toBe(0);

    // Default library access: chosen libraries only (none exists yet, so the list is empty and says so),
    // saved as one body; then every library again.
    await page.getByTestId('library-access-mode-ALLOW_LIST').check();
    await expect.poll(() => page.getByTestId('library-access-empty').count()).toBe(1);
    await expect.poll(() => unsaved(page, 'defaultLibraryAccess').count()).toBe(1);
    await page.getByTestId('defaultLibraryAccess-save').click();
    await expect
      .poll(() => api('/api/auth/admin/library-access-policy'))
      .toEqual({ mode: 'ALLOW_LIST', libraryIds: [] });
    await expect.poll(() => unsaved(page, 'defaultLibraryAccess').count()).toBe(0);
    await page.getByTestId('library-access-mode-ALL').check();
    await page.getByTestId('defaultLibraryAccess-save').click();
    await expect
      .poll(() => api('/api/auth/admin/library-access-policy'))
      .toEqual({ mode: 'ALL', libraryIds: [] });

    // Play-agent policy: only proto_a selectable; cache and the DRIVE_A redirect switched on.
    expect(await page.getByTestId('play-agent-protocol-proto_a').isChecked()).toBe(true);
    expect(await page.getByTestId('play-agent-protocol-PROTO_B').isDisabled()).toBe(true);
    expect(await page.getByTestId('play-agent-protocol-PROTO_C').isDisabled()).toBe(true);
    expect(await page.getByTestId('play-agent-ttl').inputValue()).toBe('300');
    await toggle(page, 'play-agent-response-cache');
    await toggle(page, 'play-agent-drive-a-redirect');
    await expect.poll(() => unsaved(page, 'playAgentPolicy').count()).toBe(1);
    await page.getByTestId('playAgentPolicy-save').click();
    await expect
      .poll(() => api('/api/config/play-agent/policy'))
      .toEqual({
        protocol: 'proto_a',
        responseCache: true,
        metadataCacheTtlSeconds: 300,
        driveARedirect: true,
      });
    await expect.poll(() => unsaved(page, 'playAgentPolicy').count()).toBe(0);

    // Protocol server information: immediate.
    await page.getByTestId('protocol-server-name').fill('Hall Server');
    await page.getByTestId('protocol-product-name').fill('Hall Product');
    await expect.poll(() => unsaved(page, 'protocolInfo').count()).toBe(1);
    await page.getByTestId('protocolInfo-save').click();
    await expect
      .poll(async () => {
        const { serverName, productName } = await api('/api/media/protocol/proto_a/settings');
        return { serverName, productName };
      })
      .toEqual({ serverName: 'Hall Server', productName: 'Hall Product' });

    // MCP (default off) with its address.
    expect(await page.getByTestId('mcp-url').inputValue()).toBe(`${install.entrance}/mcp`);
    expect(await page.getByTestId('mcp-switch').isChecked()).toBe(false);
    await toggle(page, 'mcp-switch');
    await expect.poll(() => unsaved(page, 'mcp').count()).toBe(1);
    await page.getByTestId('mcp-save').click();
    await expect.poll(async () => (await api('/api/config/system-settings/mcp')).enabled).toBe(true);
    await expect.poll(() => unsaved(page, 'mcp').count()).toBe(0);

    // Activity log retention (the report's card): a longer retention needs no confirmation.
    await page.getByTestId('retention-shortcut-180').click();
    await expect.poll(() => unsaved(page, 'retention').count()).toBe(1);
    await page.getByTestId('retention-save').click();
    await expect.poll(async () => (await api('/api/auth/admin/activity-log/retention')).days).toBe(180);
    await expect.poll(() => unsaved(page, 'retention').count()).toBe(0);

    // Reset discards an edit without saving.
    await page.getByTestId('system-name-input').fill('Not kept');
    await expect.poll(() => unsaved(page, 'systemName').count()).toBe(1);
    await page.getByTestId('systemName-reset').click();
    expect(await page.getByTestId('system-name-input').inputValue()).toBe('Media Hall');
    await expect.poll(() => unsaved(page, 'systemName').count()).toBe(0);

    await page.evaluate(() => window.scrollTo(0, 0));
    await watched.screenshot('en-light-saved');
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  });

  it('uploads a logo that takes effect on save; a non-image file is refused in the browser', async () => {
    const watched = await openSettings();
    const { page } = watched;
    const uploads: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/config/uploads/image')) uploads.push(request.method());
    });
    const fileInput = page.getByTestId('card-logo').locator('input[type="file"]');

    await fileInput.setInputFiles({
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: Buffer.from('<html><script>alert(1)</script></html>'),
    });
    await expect
      .poll(() => page.getByTestId('card-logo').innerText())
      .toContain('not a PNG, JPEG, GIF, WebP or ICO');
    expect(uploads).toEqual([]);
    expect(await unsaved(page, 'logo').count()).toBe(0);

    const png = tinyPng();
    await fileInput.setInputFiles({ name: 'hall.png', mimeType: 'image/png', buffer: png });
    await expect.poll(() => page.getByTestId('logo-preview').count()).toBe(1);
    expect(uploads).toEqual(['POST']);
    await expect.poll(() => unsaved(page, 'logo').count()).toBe(1);
    // The upload alone changes nothing.
    expect((await api('/api/auth/branding')).logoUrl).toBeNull();
    await watched.screenshot('logo-preview');

    await page.getByTestId('logo-save').click();
    await expect
      .poll(async () => (await api('/api/auth/branding')).logoUrl)
      .toMatch(/^\/api\/auth\/branding\/logo\/[0-9a-f]{64}\.png$/);
    const logoUrl = String((await api('/api/auth/branding')).logoUrl);
    const served = await fetch(`${install.entrance}${logoUrl}`);
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
    await expect.poll(() => unsaved(page, 'logo').count()).toBe(0);
    // The shell's favicon follows at once.
    await expect
      .poll(() =>
        page.evaluate(() => document.querySelector<HTMLLinkElement>('link[rel="icon"]')?.href ?? ''),
      )
      .toBe(`${install.entrance}${logoUrl}`);

    // Remove it again: "no logo" is saved as null.
    await page.getByTestId('card-logo').getByText('No logo', { exact: true }).click();
    await expect.poll(() => unsaved(page, 'logo').count()).toBe(1);
    await page.getByTestId('logo-save').click();
    await expect.poll(async () => (await api('/api/auth/branding')).logoUrl).toBeNull();
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  });

  it('shows a regenerated inbound token once, then only masked', async () => {
    const watched = await openSettings();
    const { page } = watched;
    const card = page.getByTestId('card-webhookToken');
    // The first token needs no confirmation: nothing is invalidated.
    await card.getByTestId('webhook-token-regenerate').click();
    await expect.poll(() => card.getByTestId('webhook-token-plain').count()).toBe(1);
    const first = await card.getByTestId('webhook-token-plain').inputValue();

    await card.getByTestId('webhook-token-regenerate').click();
    await expect.poll(() => page.getByTestId('confirm-button').count()).toBe(1);
    await page.getByTestId('confirm-button').click();
    await expect.poll(() => card.getByTestId('webhook-token-plain').inputValue()).not.toBe(first);
    const token = await card.getByTestId('webhook-token-plain').inputValue();
    expect(await card.getByTestId('webhook-token-url').inputValue()).toBe(
      `${install.entrance}/api/webhook/${encodeURIComponent(token)}`,
    );
    const status = await api('/api/media/webhook/token');
    expect(status.exists).toBe(true);
    expect(String(status.masked).endsWith(token.slice(-4))).toBe(true);
    expect(status.masked).not.toBe(token);
    await watched.screenshot('inbound-token-once');

    await page.reload();
    await settled(page);
    await watched.screenshot('inbound-token-after-reload');
    await expect.poll(() => card.getByTestId('webhook-token-masked').count(), { timeout: 10_000 }).toBe(1);
    expect(await card.getByTestId('webhook-token-masked').innerText()).toBe(String(status.masked));
    expect(await card.getByTestId('webhook-token-plain').count()).toBe(0);
    expect(await page.content()).not.toContain(token);
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  });

  it('guards unsaved changes against in-app navigation and closing the tab', async () => {
    const watched = await openSettings();
    const { page } = watched;
    await page.getByTestId('protocol-server-name').fill('Unsaved name');
    await expect.poll(() => unsaved(page, 'protocolInfo').count()).toBe(1);

    await page.getByTestId('nav-users').click();
    await expect.poll(() => page.getByTestId('unsaved-guard-stay').count()).toBe(1);
    expect(new URL(page.url()).pathname).toBe('/console/settings');
    await watched.screenshot('guard');
    await page.getByTestId('unsaved-guard-stay').click();
    await expect.poll(() => page.getByTestId('unsaved-guard-stay').count()).toBe(0);
    expect(new URL(page.url()).pathname).toBe('/console/settings');
    expect(await page.getByTestId('protocol-server-name').inputValue()).toBe('Unsaved name');

    await page.getByTestId('nav-users').click();
    await page.getByTestId('unsaved-guard-leave').click();
    await page.waitForURL(/\/console\/users$/);

    // Back with a new edit: a reload asks the browser's beforeunload question.
    await page.getByTestId('nav-settings').click();
    await page.waitForURL(/\/console\/settings$/);
    await settled(page);
    await page.getByTestId('protocol-server-name').fill('Another unsaved name');
    await expect.poll(() => unsaved(page, 'protocolInfo').count()).toBe(1);
    await expect
      .poll(() => page.evaluate(() => document.documentElement.dataset.unsavedGuard ?? ''))
      .toBe('armed');
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.type());
      void dialog.accept();
    });
    await page.reload();
    expect(dialogs).toEqual(['beforeunload']);

    // Nothing unsaved: no question.
    await settled(page);
    await page.reload();
    expect(dialogs).toEqual(['beforeunload']);
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  });

  it('reads well in Chinese and dark at a phone’s width', async () => {
    const watched = await openSettings({ language: 'zh', scheme: 'dark', width: 390 });
    const { page } = watched;
    await expect.poll(() => page.getByTestId('settings-page').innerText()).toContain('新用户的默认节点访问');
    expect(
      await page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme')),
    ).toBe('dark');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.getByTestId('system-name-input').fill('媒体厅');
    await expect.poll(() => page.getByTestId('systemName-unsaved').innerText()).toBe('有未保存的修改');
    await watched.screenshot('zh-dark-390');
    await page.getByTestId('systemName-reset').click();
    await watched.context.close();
    const wide = await openSettings({ language: 'zh', scheme: 'dark' });
    await wide.screenshot('zh-dark');
    expect([...watched.problems, ...wide.problems]).toEqual([]);
    await wide.context.close();
  });
});
