import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  configComponentFactory,
  type ConfigParts,
} from '../../../server/src/services/config/config.component.js';
import { loadRole } from '../../../server/src/runtime/roles.js';
import { startTestInstall, waitFor, type TestInstall } from '../../../server/test/support/runtime.js';
import { launchChromium, openPage } from './support/browser.js';
import { callApi } from './support/install.js';
import { settled, signIn } from './support/ui.js';

const ADMIN = { username: 'root', password: 'root-password-1' };
const MiB = 1024 ** 2;
/** Play-agent records whose nodes never came up (no registered address). */
const DOWN = 'node-pa-sync-source';
const DOWN_TARGET = 'node-pa-sync-down';

/**
 * The node cache page's sync in Chromium, against the console's real services and a real built-in
 * play-agent started in this process (the standalone program cannot hold further play-agent records): the
 * configuration of a node that is down is copied to the running built-in node and to another node that is
 * down, and the page shows each node's outcome.
 */
describe('node cache page: sync to other nodes', () => {
  let install: TestInstall;
  let parts: ConfigParts | undefined;
  let browser: Browser;
  let entrance: string;
  let builtIn: string;
  let adminHeaders: Record<string, string>;

  beforeAll(async () => {
    const control = (await loadRole('standalone-control')).slice(1);
    [install, browser] = await Promise.all([
      startTestInstall(
        [
          configComponentFactory({ expose: (exposed) => (parts = exposed) }),
          ...control,
          ...(await loadRole('play-agent')),
        ],
        { SVC_DB_MODE: 'bundled' },
      ),
      launchChromium(),
    ]);
    entrance = install.url('frontend');
    builtIn = install.context.settings.embeddedPlayAgentNodeId;
    await waitFor(
      async () =>
        (await callApi(entrance, 'GET', '/api/auth/setup/status')).status === 200 ? true : undefined,
      60_000,
    );
    await callApi(entrance, 'POST', '/api/auth/setup/admin', { body: ADMIN });
    const login = await callApi(entrance, 'POST', '/api/auth/login', {
      body: { ...ADMIN, client: 'console' },
    });
    adminHeaders = { 'x-admin-token': String(login.body.adminToken) };
    // The built-in play-agent has registered its address (a push needs it).
    await waitFor(
      async () =>
        (
          await callApi(entrance, 'GET', `/api/config/nodes/${builtIn}/proxy/cache/disk-usage`, {
            headers: adminHeaders,
          })
        ).status === 200
          ? true
          : undefined,
      60_000,
    );
    for (const [nodeId, name] of [
      [DOWN, 'Sync source'],
      [DOWN_TARGET, 'Sync target down'],
    ] as const) {
      await parts!.nodes.ensure({ nodeId, serviceType: 'svc-play-agent', name, scope: 'EXTERNAL' });
    }
    const saved = await callApi(entrance, 'PATCH', `/api/config/nodes/${DOWN}/cache-config`, {
      headers: adminHeaders,
      body: { vfs: { capacityBytes: 768 * MiB }, image: { retentionHours: 48 } },
    });
    expect(saved.status).toBe(200);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await install?.stop();
  });

  it('copies the configuration to a running node and a node that is down, with a result per node', async () => {
    const watched = await openPage(browser, 'web-node-cache-sync');
    const { page } = watched;
    await watched.context.addInitScript(() => localStorage.setItem('svc.language', 'en'));
    await signIn(page, entrance, 'console', ADMIN.username, ADMIN.password);
    await page.goto(`${entrance}/console/cache/${DOWN}`);
    await settled(page);

    const card = page.getByTestId('cache-sync');
    // The picker's field sits under the pills wrapper, which takes the pointer: open it like a click would.
    const picker = card.getByTestId('sync-targets');
    await picker.focus();
    await picker.dispatchEvent('click');
    await page.getByRole('option', { name: new RegExp(builtIn) }).click();
    await page.getByRole('option', { name: new RegExp(DOWN_TARGET) }).click();
    await picker.press('Escape');
    await card.getByRole('button', { name: 'Copy', exact: true }).click();

    const results = card.getByTestId('sync-results');
    await results.waitFor();
    // Each row names its node as the node list does.
    const listed = await callApi(entrance, 'GET', '/api/config/nodes', { headers: adminHeaders });
    const builtInName = (listed.body.nodes as { nodeId: string; name: string }[]).find(
      (node) => node.nodeId === builtIn,
    )!.name;
    const running = results.getByRole('row').filter({ hasText: builtInName });
    const down = results.getByRole('row').filter({ hasText: 'Sync target down' });
    await running.getByText('Applied now').waitFor();
    await running.getByText('Saved', { exact: true }).waitFor();
    await down.getByText('Applied at its next pull').waitFor();
    await down.getByText('Saved', { exact: true }).waitFor();
    expect(await results.getByRole('row').count()).toBe(2);
    await watched.screenshot('synced');

    // Both targets hold the copy; the running node took it at once.
    for (const nodeId of [builtIn, DOWN_TARGET]) {
      const config = await callApi(entrance, 'GET', `/api/config/nodes/${nodeId}/cache-config`, {
        headers: adminHeaders,
      });
      expect(config.body).toMatchObject({ vfs: { capacityBytes: 768 * MiB }, image: { retentionHours: 48 } });
    }
    const usage = await callApi(entrance, 'GET', `/api/config/nodes/${builtIn}/proxy/cache/disk-usage`, {
      headers: adminHeaders,
    });
    expect(usage.body).toMatchObject({ capacityBytes: 768 * MiB });
    // The source node is down: only its own usage card could not be read.
    expect(watched.problems.filter((problem) => !/503|Service Unavailable/.test(problem))).toEqual([]);
    await watched.context.close();
  }, 180_000);
});
