import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { arrangeLibrary, type Arranged } from './support/arrange.js';
import { launchChromium, openPage } from './support/browser.js';
import { callApi, startStandalone, type RunningInstall } from './support/install.js';
import { settled, signIn } from './support/ui.js';

const ADMIN = { username: 'root', password: 'root-password-1' };
const VIEWER = { username: 'viewer', password: 'viewer-password-1' };
const PLAY_AGENT_NODE = 'node-local-play-agent';

/** A loopback port nothing listens on: bound by the system, then released. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * The portal's web player in Chromium: an external address that nothing answers is named as the cause
 * (not the file's format, a quota or access), and the MKV's SubRip file beside it is offered and shown as
 * a WebVTT track, with its two audio tracks listed.
 */
describe('the web player in Chromium', () => {
  let install: RunningInstall;
  let browser: Browser;
  let arranged: Arranged;

  beforeAll(async () => {
    [install, browser] = await Promise.all([startStandalone(), launchChromium()]);
    arranged = await arrangeLibrary(install.entrance, ADMIN, VIEWER);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await install?.stop();
  });

  const setPlaybackAddress = async (port: number) => {
    const answer = await callApi(install.entrance, 'PATCH', `/api/config/nodes/${PLAY_AGENT_NODE}`, {
      headers: arranged.adminHeaders,
      body: { externalAddress: { protocol: 'http', host: '127.0.0.1', port } },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  };

  const playArrival = async (page: Page) => {
    await page.goto(`${install.entrance}/portal/libraries`);
    await page.getByTestId('item-card').filter({ hasText: 'Arrival' }).first().click();
    await page.getByTestId('item-details').waitFor();
    await settled(page);
    await page.getByTestId('play-in-browser').click();
    await page.getByTestId('web-player').waitFor();
  };

  it('says that the playback address cannot be reached when nothing answers there', async () => {
    await setPlaybackAddress(await closedPort());
    const portal = await openPage(browser, 'web-player-unreachable');
    const { page } = portal;
    await signIn(page, install.entrance, 'portal', VIEWER.username, VIEWER.password);
    await playArrival(page);
    const alert = page.locator('[data-testid="web-player-error"][data-cause]');
    await alert.waitFor({ timeout: 30_000 });
    expect(await alert.getAttribute('data-cause')).toBe('unreachable');
    const text = await alert.innerText();
    expect(text).toMatch(/cannot reach the playback address/i);
    expect(text).not.toMatch(/quota|format/i);
    // The subtitle track is offered all the same.
    expect(await page.getByTestId('web-player-track').count()).toBe(1);
    await portal.screenshot('unreachable');
    await portal.context.close();
  });

  it('shows the SubRip file beside the MKV as a WebVTT track and lists its audio tracks', async () => {
    const port = Number(install.env.PLAY_AGENT_LISTEN.split(':').pop());
    await setPlaybackAddress(port);
    const portal = await openPage(browser, 'web-player-tracks');
    const { page } = portal;
    await signIn(page, install.entrance, 'portal', VIEWER.username, VIEWER.password);
    await playArrival(page);
    const track = page.getByTestId('web-player-track');
    expect(await track.getAttribute('src')).toContain(`127.0.0.1:${port}/Videos/`);
    expect(await track.getAttribute('kind')).toBe('subtitles');
    expect(await track.getAttribute('srclang')).toBe('en');
    await page.getByTestId('web-player-subtitles').click();
    await page.getByRole('option', { name: /^EN SRT/ }).click();
    await page.waitForFunction(
      () => {
        const video = document.querySelector<HTMLVideoElement>('[data-testid="web-player"]');
        const shown = Array.from(video?.textTracks ?? []).find((candidate) => candidate.mode === 'showing');
        return (shown?.cues?.length ?? 0) > 0;
      },
      undefined,
      { timeout: 20_000 },
    );
    // Chromium has no audioTracks without a flag: the tracks are listed with a note.
    const audio = page.getByTestId('web-player-audio-list');
    await audio.waitFor();
    expect(await audio.innerText()).toMatch(/ENG[\s\S]*FRE/);
    expect(await page.getByTestId('web-player-error').count()).toBe(0);
    expect(await page.getByTestId('web-player-unsupported').count()).toBe(0);
    await portal.screenshot('tracks');
    expect(portal.problems).toEqual([]);
    await portal.context.close();
  });
});
