import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  generatePublisherKeys,
  publicKeyLine,
  signCode,
  signLease,
  type LeasePayload,
} from '../../../server/src/services/config/licenses/lease.js';
import { portEnv } from '../../../server/test/support/ports.js';
import { runSvc, type SvcProcess } from '../../../server/test/support/svc-process.js';
import { launchChromium, openPage, type WatchedPage } from './support/browser.js';
import { callApi } from './support/install.js';
import { settled, signIn } from './support/ui.js';

const ADMIN = { username: 'root', password: 'root-password-1' };
const STORAGE_ID = 'node-local-storage';
const PLAY_AGENT_ID = 'node-local-play-agent';

interface NodeRecord {
  nodeId: string;
  serviceType: string;
  scope: string;
  status: string;
  expectedHost: string | null;
}

/**
 * A former built-in node in the console (spec, standalone → distributed: the built-in nodes are installed on
 * target machines with their original ids). The four roles run as separate processes with nothing running the
 * built-in nodes, and the edition was upgraded: both built-in records read AWAITING_INSTALL. In Chromium, the
 * node's "Install on a target machine" button opens the create form with the same id and type; submitting it
 * turns the record into a worker node with that id and shows its install commands. The button in Chinese.
 */
describe('install a former built-in node on a target machine', () => {
  const publisher = generatePublisherKeys();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-web-install-on-target-'));
  const roles: SvcProcess[] = [];
  let browser: Browser;
  let entrance = '';
  let headers: Record<string, string> = {};

  const lease = (kind: LeasePayload['kind'], edition: LeasePayload['edition']) => {
    const now = Date.now();
    return signLease(
      {
        licenseId: 'lic-web-target',
        kind,
        edition,
        maxStorageNodes: 2,
        maxPlayAgentNodes: 2,
        validFrom: new Date(now - 60_000).toISOString(),
        validUntil: new Date(now + 30 * 86_400_000).toISOString(),
        graceUntil: new Date(now + 60 * 86_400_000).toISOString(),
        issuedAt: new Date(now).toISOString(),
      },
      publisher.privateKey,
    );
  };
  const nodes = async () =>
    (
      (await callApi(entrance, 'GET', '/api/config/nodes', { headers })).body as {
        nodes: NodeRecord[];
      }
    ).nodes;
  const nodeOf = async (nodeId: string) => (await nodes()).find((node) => node.nodeId === nodeId);

  async function openConsole(language: 'en' | 'zh'): Promise<WatchedPage> {
    const watched = await openPage(browser, `web-node-install-on-target-${language}`);
    await watched.context.addInitScript((lang) => localStorage.setItem('svc.language', lang), language);
    await signIn(watched.page, entrance, 'console', ADMIN.username, ADMIN.password);
    return watched;
  }

  beforeAll(async () => {
    const env = {
      ...(await portEnv()),
      SVC_DB_MODE: 'bundled',
      SVC_DATA_DIR: dataDir,
      SVC_SERVICE_TOKEN: 'svc_st_install_on_target_web_token_0123456789',
      SVC_BIND_HOST: '127.0.0.1',
      SVC_LICENSE_PUBLIC_KEY: publicKeyLine(publisher.publicKey),
    };
    entrance = `http://127.0.0.1:${env.SVC_FRONTEND_PORT}`;
    const launching = launchChromium();
    // Control first: it creates the built-in records the others' migrations do not need.
    const control = runSvc(['role', 'control'], env);
    roles.push(control);
    await control.waitForLog(/"msg":"ready"/, 180_000);
    for (const role of ['user', 'media', 'edge']) roles.push(runSvc(['role', role], env));
    await Promise.all(roles.map((svc) => svc.waitForLog(/"msg":"ready"/, 180_000)));
    browser = await launching;

    expect((await callApi(entrance, 'POST', '/api/auth/setup/admin', { body: ADMIN })).status).toBe(201);
    const login = await callApi(entrance, 'POST', '/api/auth/login', {
      body: { ...ADMIN, client: 'console' },
    });
    headers = { 'x-admin-token': String(login.body.adminToken) };
    const activated = await callApi(entrance, 'POST', '/api/license/activate', {
      headers,
      body: { code: signCode('code-web-target', lease('lease', 'STANDALONE'), publisher.privateKey) },
    });
    expect(activated.status).toBe(200);
    const upgraded = await callApi(entrance, 'POST', '/api/admin/licenses/lic-web-target/edition', {
      headers,
      body: { lease: lease('edition-upgrade', 'DISTRIBUTED') },
    });
    expect(upgraded.status).toBe(200);
    // Nothing runs the built-in nodes here: both records await their install on a target machine.
    expect(await nodeOf(STORAGE_ID)).toMatchObject({ scope: 'EMBEDDED', status: 'AWAITING_INSTALL' });
    expect(await nodeOf(PLAY_AGENT_ID)).toMatchObject({ scope: 'EMBEDDED', status: 'AWAITING_INSTALL' });
  }, 400_000);

  afterAll(async () => {
    await browser?.close();
    for (const svc of roles) if (svc.child.exitCode === null) svc.child.kill('SIGTERM');
    await Promise.all(roles.map((svc) => svc.exited));
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('the button opens the create form with the same id and type; the record becomes a worker node', async () => {
    const watched = await openConsole('en');
    const { page } = watched;
    await page.goto(`${entrance}/console/nodes`);
    await settled(page);
    const row = page.locator(`[data-testid="node-row"][data-node-id="${STORAGE_ID}"]`);
    await row.getByText('Awaiting install on a target machine').waitFor();
    await row.getByTestId('node-link').click();
    await page.waitForURL(new RegExp(`/console/nodes/${STORAGE_ID}$`));
    // The list may still be on the page for a moment after the address changed: read the detail's badge.
    const detail = page.locator(`[data-testid="node-detail"][data-node-id="${STORAGE_ID}"]`);
    await detail.waitFor();
    await settled(page);
    expect(await detail.getByTestId('node-status').getAttribute('data-status')).toBe('AWAITING_INSTALL');
    await watched.screenshot('awaiting-install');

    await detail.getByTestId('node-install-on-target').click();
    await page.waitForURL(/\/console\/nodes\?/);
    const query = new URL(page.url()).searchParams;
    expect(Object.fromEntries(query)).toEqual({ install: STORAGE_ID, type: 'svc-control-storage' });
    const form = page.getByTestId('node-create-form');
    await form.waitFor();
    expect(await page.getByTestId('node-form-node-id').inputValue()).toBe(STORAGE_ID);
    expect(await page.getByTestId('node-form-type').inputValue()).toBe('Storage node');
    await page.getByTestId('node-form-name').fill('Storage on nas-2');
    await page.getByTestId('node-form-expected-host').fill('10.0.0.25');
    await watched.screenshot('create-form-prefilled');
    await page.getByTestId('node-create-submit').click();

    // The same id, now a worker node with its own install command.
    const created = page.getByTestId('node-created');
    await created.waitFor();
    await page.getByRole('dialog').getByText(`Node ${STORAGE_ID} added`).waitFor();
    expect(await created.getByTestId('install-command-binary').innerText()).toMatch(
      /\/api\/config\/nodes\/install\/\S+\/binary \| bash/,
    );
    await watched.screenshot('created');
    expect(await nodeOf(STORAGE_ID)).toMatchObject({
      serviceType: 'svc-control-storage',
      scope: 'EXTERNAL',
      status: 'PENDING',
      expectedHost: '10.0.0.25',
    });
    // Only one record carries the id; the play-agent still awaits its install.
    expect((await nodes()).filter((node) => node.nodeId === STORAGE_ID)).toHaveLength(1);
    expect(await nodeOf(PLAY_AGENT_ID)).toMatchObject({ scope: 'EMBEDDED', status: 'AWAITING_INSTALL' });
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  }, 180_000);

  it('in Chinese, the play-agent awaiting install offers the same link; cancelling leaves the record', async () => {
    const watched = await openConsole('zh');
    const { page } = watched;
    await page.goto(`${entrance}/console/nodes/${PLAY_AGENT_ID}`);
    await settled(page);
    await page.getByTestId('node-status').getByText('待在目标机器上安装').waitFor();
    const button = page.getByTestId('node-install-on-target');
    expect((await button.innerText()).trim()).toBe('在目标机器上安装');
    await button.click();
    await page.waitForURL(/\/console\/nodes\?/);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({
      install: PLAY_AGENT_ID,
      type: 'svc-play-agent',
    });
    expect(await page.getByTestId('node-form-node-id').inputValue()).toBe(PLAY_AGENT_ID);
    await watched.screenshot('zh-prefilled');
    await page.getByTestId('node-create-form').getByRole('button', { name: '取消' }).click();
    await page.getByTestId('node-create-form').waitFor({ state: 'detached' });
    expect(new URL(page.url()).search).toBe('');
    expect(await nodeOf(PLAY_AGENT_ID)).toMatchObject({ scope: 'EMBEDDED', status: 'AWAITING_INSTALL' });
    // A node that is not awaiting install has no such button (the storage node taken over above).
    await page.goto(`${entrance}/console/nodes/${STORAGE_ID}`);
    const detail = page.locator(`[data-testid="node-detail"][data-node-id="${STORAGE_ID}"]`);
    await detail.waitFor();
    await settled(page);
    expect(await detail.getByTestId('node-install-on-target').count()).toBe(0);
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  }, 180_000);
});
