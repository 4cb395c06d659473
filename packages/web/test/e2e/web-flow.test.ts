import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { mediaFixtures, type MediaFixtures } from '../../../server/test/support/media-fixtures.js';
import { launchChromium, openPage, type WatchedPage } from './support/browser.js';
import { startStandalone, type RunningInstall } from './support/install.js';
import { setUpFirstAdmin, settled, signIn } from './support/ui.js';

const SERVICE_TOKEN = 'svc_st_web_flow_test_token_long_enough_0123456789';
const ADMIN = { username: 'root', password: 'root-password-1' };
const VIEWER = { username: 'viewer', password: 'viewer-password-1' };

/** Picks an option of a Mantine Select whose input carries the test id. */
async function choose(page: Page, testId: string, option: string) {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/** Opens the dashboard and waits until its first-run checklist shows `step` in `state` (refreshing it). */
async function expectSetupStep(page: Page, step: string, state: 'done' | 'todo') {
  await page.getByTestId('nav-dashboard').click();
  await page.getByTestId('dashboard').waitFor();
  const row = page.locator(`[data-testid="setup-step"][data-step="${step}"]`);
  await expect
    .poll(
      async () => {
        await page.getByTestId('dashboard-refresh').click();
        return row.getAttribute('data-state', { timeout: 2_000 }).catch(() => null);
      },
      { timeout: 30_000 },
    )
    .toBe(state);
}

/**
 * The walkthrough of a new install in Chromium against the real program, from a fresh data folder:
 * first-run set-up → the dashboard's checklist of what is left → a mount of the generated media → a library
 * with its folder picked by browsing, whose first scan starts by itself (its progress bar seen) → a user,
 * after which the checklist is complete and gone → the portal as that user: the library, the playback
 * routes, a film played in the browser with its time advancing → the play in the activity log → the same
 * user through the Emby API (sign-in by name, PlaybackInfo, a ranged stream) with no other set-up.
 */
describe('console and portal end to end', () => {
  let install: RunningInstall;
  let browser: Browser;
  let fixtures: MediaFixtures;
  let console_: WatchedPage;

  beforeAll(async () => {
    [install, browser, fixtures] = await Promise.all([
      startStandalone({ SVC_SERVICE_TOKEN: SERVICE_TOKEN }),
      launchChromium(),
      mediaFixtures(),
    ]);
    console_ = await openPage(browser, 'web-flow-console');
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await install?.stop();
  });

  it('an administrator sets up the service through the console', async () => {
    const { page } = console_;
    await setUpFirstAdmin(page, install.entrance, ADMIN.username, ADMIN.password);
    await console_.screenshot('sign-in-after-setup');
    await signIn(page, install.entrance, 'console', ADMIN.username, ADMIN.password);
    await page.getByTestId('dashboard').waitFor();
    await settled(page);
    // A fresh install: everything left to do but the built-in play-agent, which comes online by itself.
    for (const step of ['storage', 'library', 'scan', 'users']) await expectSetupStep(page, step, 'todo');
    await expectSetupStep(page, 'playback', 'done');
    await console_.screenshot('dashboard-checklist-fresh');

    // A fresh install needs no playback address: until one is set, the built-in play-agent is handed out
    // at its direct address, at the port it really listens on (the test moves it off 19090).
    const playAgentPort = install.env.PLAY_AGENT_LISTEN.split(':').pop()!;
    await page.getByTestId('nav-nodes').click();
    await page
      .locator('[data-testid="node-row"][data-node-id="node-local-play-agent"]')
      .getByTestId('node-link')
      .click();
    await page.getByTestId('node-detail').waitFor();
    await expect.poll(() => page.getByTestId('node-listen-port').innerText()).toBe(playAgentPort);
    await page.getByTestId('node-direct-address').waitFor();
    await console_.screenshot('node-detail');

    // A mount of the generated media.
    await page.getByTestId('nav-storage').click();
    await page.getByTestId('mount-create').click();
    await page.getByTestId('mount-name').fill('media');
    await page.getByTestId('mount-root').fill(fixtures.library);
    await page.getByTestId('mount-save').click();
    await page.getByTestId('mount-row').filter({ hasText: 'media' }).waitFor();
    await console_.screenshot('storage-mounts');
    await expectSetupStep(page, 'storage', 'done');

    // A library whose folder is picked by browsing the mount.
    await page.getByTestId('nav-libraries').click();
    await page.getByTestId('library-create').click();
    await page.getByTestId('library-name').fill('Films');
    await choose(page, 'library-type', 'Movies');
    await choose(page, 'source-mount', 'media');
    await page.getByTestId('folder-row').filter({ hasText: 'Movies' }).getByTestId('folder-select').check();
    await page.getByTestId('source-add-selected').click();
    await page.getByTestId('library-source').first().waitFor();
    await console_.screenshot('library-form');
    // Saving starts the first scan by itself: watch the progress bar the row shows while it runs.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { scanProgressSeen: string[] }).scanProgressSeen = seen;
      new MutationObserver(() => {
        const bar = document.querySelector('[data-testid="scan-progress"]');
        if (bar) seen.push(bar.textContent ?? '');
      }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await page.getByTestId('library-save').click();
    const row = page.getByTestId('library-row').filter({ hasText: 'Films' });
    await row.waitFor();
    await page
      .locator('[data-testid="scan-result"][data-outcome="succeeded"]')
      .first()
      .waitFor({ timeout: 90_000 });
    const seen = await page.evaluate(
      () => (window as unknown as { scanProgressSeen: string[] }).scanProgressSeen,
    );
    expect(seen.length).toBeGreaterThan(0);
    await console_.screenshot('library-scanned');
    await expect
      .poll(() => row.getByTestId('library-item-count').innerText())
      .toContain(String(fixtures.movies.length));

    await row.getByRole('link').first().click();
    await page.getByTestId('item-card').first().waitFor();
    await page.getByTestId('poster-image').first().waitFor();
    await console_.screenshot('library-items');
    // Containers go by their common names, not ffprobe's format lists.
    for (const [title, container] of [
      ['Heat', 'MP4'],
      ['Arrival', 'MKV'],
    ]) {
      await page.getByTestId('item-card').filter({ hasText: title }).first().click();
      await expect.poll(() => page.getByTestId('item-container').innerText()).toBe(container);
      await page.goBack();
    }
    await console_.screenshot('item-detail');
    for (const step of ['library', 'scan']) await expectSetupStep(page, step, 'done');
    await expectSetupStep(page, 'users', 'todo');
    await console_.screenshot('dashboard-checklist-users-left');

    // A user.
    await page.getByTestId('nav-users').click();
    await page.getByTestId('user-create-button').click();
    await page.getByTestId('user-form-username').fill(VIEWER.username);
    await page.getByTestId('user-form-password').fill(VIEWER.password);
    await page.getByTestId('user-form-password-repeat').fill(VIEWER.password);
    await console_.screenshot('user-create-form');
    await page.getByTestId('user-create-submit').click();
    await page.locator(`[data-testid="user-row"][data-username="${VIEWER.username}"]`).waitFor();
    await console_.screenshot('users');

    // Every step is done: the checklist is gone.
    await page.getByTestId('nav-dashboard').click();
    await expect
      .poll(async () => {
        await page.getByTestId('dashboard-refresh').click();
        return page.getByTestId('setup-checklist').count();
      })
      .toBe(0);
    await console_.screenshot('dashboard-set-up');
    expect(console_.problems).toEqual([]);
  });

  it('the user finds the library and the routes in the portal, and plays a film in the browser', async () => {
    const portal = await openPage(browser, 'web-flow-portal');
    const { page } = portal;
    await signIn(page, install.entrance, 'portal', VIEWER.username, VIEWER.password);
    await page.getByTestId('items-grid').waitFor();
    for (const movie of fixtures.movies) {
      await page.getByTestId('item-card').filter({ hasText: movie.title }).first().waitFor();
    }
    await settled(page);
    await portal.screenshot('my-libraries');

    await page.getByTestId('nav-routes').click();
    const route = page.getByTestId('route-card').first();
    await route.waitFor();
    const playAgentPort = install.env.PLAY_AGENT_LISTEN.split(':').pop()!;
    await expect
      .poll(() => route.getByTestId('route-url').innerText())
      .toContain(`127.0.0.1:${playAgentPort}`);
    await expect.poll(() => route.getByTestId('route-health').getAttribute('data-health')).toBe('online');
    await route.getByTestId('route-direct').waitFor();
    await portal.screenshot('my-routes');

    await page.getByTestId('nav-quota').click();
    await settled(page);
    await portal.screenshot('my-quota');

    await page.getByTestId('nav-libraries').click();
    await page.getByTestId('item-card').filter({ hasText: 'Heat' }).first().click();
    await page.getByTestId('item-details').waitFor();
    await page.getByTestId('play-in-browser').click();
    const video = page.getByTestId('web-player');
    await video.waitFor();
    await video.evaluate((element) => {
      const player = element as HTMLVideoElement;
      player.muted = true;
      return player.play();
    });
    const first = await video.evaluate((element) => (element as HTMLVideoElement).currentTime);
    await page.waitForFunction(
      (start) => {
        const player = document.querySelector<HTMLVideoElement>('[data-testid="web-player"]');
        return player !== null && player.currentTime > start + 1;
      },
      first,
      { timeout: 20_000 },
    );
    await portal.screenshot('web-playback');
    await page.getByTestId('web-player-close').click();

    // The play is in the activity log, reported by the play-agent with the bytes it sent.
    const viewerId = await page.evaluate(
      () =>
        (JSON.parse(localStorage.getItem('svc.session.portal') ?? '{}') as { user?: { id?: string } }).user
          ?.id,
    );
    expect(viewerId).toBeTruthy();
    const deadline = Date.now() + 20_000;
    let events: { eventType: string; mediaName: string | null; bytesDelta: number }[] = [];
    while (Date.now() < deadline) {
      const response = await fetch(
        `http://127.0.0.1:${install.env.SVC_USER_PORT}/api/auth/internal/activity?userId=${viewerId}&limit=100`,
        { headers: { 'x-svc-service-token': SERVICE_TOKEN } },
      );
      events = ((await response.json()) as { events: typeof events }).events;
      if (
        events.some((event) => event.eventType === 'start') &&
        events.some((event) => event.eventType === 'stop')
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(events.filter((event) => event.eventType === 'start').map((event) => event.mediaName)).toContain(
      'Heat',
    );
    expect(events.some((event) => event.eventType === 'stop')).toBe(true);
    expect(events.reduce((sum, event) => sum + event.bytesDelta, 0)).toBeGreaterThan(0);
    expect(portal.problems).toEqual([]);
    await portal.context.close();
  });

  it('the same user plays through the Emby API with no other set-up', async () => {
    const playAgent = `http://${install.env.PLAY_AGENT_LISTEN}`;
    const client =
      'MediaBrowser Client="Emby Web", Device="Chromium", DeviceId="web-flow-1", Version="4.8.10.0"';
    const emby = async (path: string, init: { method?: string; token?: string; body?: unknown } = {}) => {
      const response = await fetch(`${playAgent}${path}`, {
        method: init.method ?? 'GET',
        headers: {
          'x-emby-authorization': client,
          ...(init.token ? { 'x-emby-token': init.token } : {}),
          ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      expect(response.status, `${path}: ${response.status}`).toBe(200);
      return (await response.json()) as Record<string, unknown>;
    };

    const signedIn = await emby('/emby/Users/AuthenticateByName', {
      method: 'POST',
      body: { Username: VIEWER.username, Pw: VIEWER.password },
    });
    const token = String(signedIn.AccessToken);
    const userId = String((signedIn.User as { Id: string }).Id);
    const items = await emby(`/emby/Users/${userId}/Items?Recursive=true&IncludeItemTypes=Movie`, { token });
    const heat = (items.Items as { Id: string; Name: string }[]).find((item) => item.Name === 'Heat');
    expect(heat).toBeDefined();

    const info = await emby(`/emby/Items/${heat!.Id}/PlaybackInfo?UserId=${userId}`, {
      method: 'POST',
      token,
      body: {},
    });
    const [source] = info.MediaSources as { Container: string; DirectStreamUrl: string; Size: number }[];
    expect(source?.Container).toBe('mp4');
    const stream = await fetch(`${playAgent}${source!.DirectStreamUrl}`, {
      headers: { range: 'bytes=0-1023', 'x-emby-authorization': client },
    });
    expect(stream.status).toBe(206);
    expect(stream.headers.get('content-range')).toBe(`bytes 0-1023/${source!.Size}`);
    expect((await stream.arrayBuffer()).byteLength).toBe(1024);
  });
});
