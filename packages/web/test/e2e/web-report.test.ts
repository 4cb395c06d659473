import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  reportOverviewResponseSchema,
  reportTimelineResponseSchema,
  type ActivityEvent,
  type ActivityMediaType,
} from '@svc/contracts';
import { buildReportCsv, reportCsvFileName } from '../../src/console/reports/report-csv.js';
import { reportsMessages } from '../../src/console/reports/reports-messages.js';
import { shanghaiDate } from '../../src/console/reports/shanghai-time.js';
import { launchChromium, openPage } from './support/browser.js';
import { callApi, startStandalone, type RunningInstall } from './support/install.js';
import { settled, signIn } from './support/ui.js';

const ADMIN = { username: 'root', password: 'root-password-1' };
const SERVICE_TOKEN = 'web-report-e2e-service-token-0123456789abcdef';
const DAY_MS = 86_400_000;

/** Yesterday and the day before, as Shanghai calendar dates (the report's time zone). */
const YESTERDAY = shanghaiDate(new Date(Date.now() - DAY_MS));
const DAY_BEFORE = shanghaiDate(new Date(Date.now() - 2 * DAY_MS));
const at = (day: string, time: string) => `${day}T${time}:00+08:00`;

interface Media {
  id: string;
  type: ActivityMediaType;
  name: string;
  series: string | null;
  runtime: number;
}
interface Device {
  client: string;
  name: string;
  id: string;
  userAgent: string;
  method: string;
}

const FILM_A: Media = { id: 'm-film-a', type: 'movie', name: 'Film A', series: null, runtime: 7200 };
const PILOT: Media = { id: 'm-show-e1', type: 'episode', name: 'Pilot', series: 'The Show', runtime: 3000 };
const FILM_B: Media = { id: 'm-film-b', type: 'movie', name: 'Film B, "Cut"', series: null, runtime: 6000 };
const TV: Device = {
  client: 'Infuse',
  name: 'Living Room',
  id: 'dev-tv',
  userAgent: 'Infuse/7 (AppleTV; tvOS 17)',
  method: 'DirectPlay',
};
const WEB: Device = {
  client: 'Emby Web',
  name: 'Chrome',
  id: 'dev-web',
  userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120',
  method: 'DirectStream',
};
const PHONE: Device = {
  client: 'Infuse',
  name: 'iPhone',
  id: 'dev-phone',
  userAgent: 'Infuse/7 (iPhone; iOS 17)',
  method: 'Redirect',
};

function event(
  userId: string,
  sessionId: string,
  media: Media,
  device: Device,
  eventType: ActivityEvent['eventType'],
  occurredAt: string,
  durationMs: number,
  bytesDelta: number,
  positionSec: number,
): ActivityEvent {
  return {
    eventId: randomUUID(),
    userId,
    eventType,
    occurredAt,
    sessionId,
    clientIp: '192.0.2.10',
    userAgent: device.userAgent,
    mediaId: media.id,
    mediaType: media.type,
    mediaName: media.name,
    seriesName: media.series,
    durationMs,
    bytesDelta,
    positionSec,
    runtimeSec: media.runtime,
    nodeId: 'node-local-play-agent',
    endpointId: null,
    client: device.client,
    deviceName: device.name,
    deviceId: device.id,
    playMethod: device.method,
    result: null,
    reason: eventType === 'stop' ? 'user' : null,
    extras: {},
  };
}

/**
 * Yesterday: alice watches Film A on her TV 20:00–21:00 (1 h, 200 MB) and Film B redirected on her phone
 * 09:00–09:10 (10 min, 0 bytes); bob watches the pilot in a browser 20:15–20:50 (35 min, 60 MB), so two
 * sessions overlap. The day before: bob watches Film A 10:00–11:00 (1 h, 10 MB). carol never plays.
 */
function arrangedEvents(aliceId: string, bobId: string): ActivityEvent[] {
  const y = (time: string) => at(YESTERDAY, time);
  const p = (time: string) => at(DAY_BEFORE, time);
  return [
    event(aliceId, 's1', FILM_A, TV, 'start', y('20:00'), 0, 0, 0),
    event(aliceId, 's1', FILM_A, TV, 'progress', y('20:30'), 1_800_000, 100_000_000, 1800),
    event(aliceId, 's1', FILM_A, TV, 'stop', y('21:00'), 1_800_000, 100_000_000, 3600),
    event(bobId, 's2', PILOT, WEB, 'start', y('20:15'), 0, 0, 0),
    event(bobId, 's2', PILOT, WEB, 'progress', y('20:45'), 1_800_000, 50_000_000, 1800),
    event(bobId, 's2', PILOT, WEB, 'stop', y('20:50'), 300_000, 10_000_000, 2100),
    event(aliceId, 's3', FILM_B, PHONE, 'start', y('09:00'), 0, 0, 0),
    event(aliceId, 's3', FILM_B, PHONE, 'stop', y('09:10'), 600_000, 0, 600),
    event(bobId, 's4', FILM_A, WEB, 'start', p('10:00'), 0, 0, 0),
    event(bobId, 's4', FILM_A, WEB, 'stop', p('11:00'), 3_600_000, 10_000_000, 7200),
  ];
}

/** The cards of preset=yesterday, worked out by hand from the events above. */
const YESTERDAY_CARDS = {
  activeUsers: { current: 2, previous: 1, direction: 'up' },
  playCount: { current: 3, previous: 1, direction: 'up' },
  watchMs: { current: 6_300_000, previous: 3_600_000, direction: 'up' },
  bytes: { current: 260_000_000, previous: 10_000_000, direction: 'up' },
  avgWatchMsPerUser: { current: 3_150_000, previous: 3_600_000, direction: 'down' },
  peakConcurrency: { current: 2, previous: 1, direction: 'up' },
} as const;

const card = (page: Page, key: string) => page.getByTestId(`report-card-${key}`);
const cardValue = async (page: Page, key: string) =>
  Number(await card(page, key).getByTestId('value').getAttribute('data-value'));

/** Picks an option of a Mantine Select. */
async function choose(page: Page, testId: string, option: string) {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

describe('playback report page in Chromium', () => {
  let install: RunningInstall;
  let browser: Browser;
  let adminHeaders: Record<string, string>;

  const api = async (route: string) => {
    const answer = await callApi(install.entrance, 'GET', route, { headers: adminHeaders });
    expect(answer.status, route).toBe(200);
    return answer.body;
  };

  beforeAll(async () => {
    [install, browser] = await Promise.all([
      startStandalone({ SVC_SERVICE_TOKEN: SERVICE_TOKEN }),
      launchChromium(),
    ]);
    await callApi(install.entrance, 'POST', '/api/auth/setup/admin', { body: ADMIN });
    const login = await callApi(install.entrance, 'POST', '/api/auth/login', {
      body: { ...ADMIN, client: 'console' },
    });
    adminHeaders = { 'x-admin-token': String(login.body.adminToken) };
    const ids: Record<string, string> = {};
    for (const name of ['alice', 'bob', 'carol']) {
      const created = await callApi(install.entrance, 'POST', '/api/auth/admin/users', {
        headers: adminHeaders,
        body: { username: name, password: `${name}-password-1` },
      });
      expect(created.status).toBe(201);
      ids[name] = String(created.body.id);
    }
    // The play-agent's own route into the activity log: the user service, with the service token.
    const stored = await fetch(`http://127.0.0.1:${install.env.SVC_USER_PORT}/api/auth/internal/activity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-service-token': SERVICE_TOKEN },
      body: JSON.stringify({ events: arrangedEvents(ids.alice ?? '', ids.bob ?? '') }),
    });
    expect(stored.status).toBe(204);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await install?.stop();
  });

  it('shows cards, charts, rankings and drill-downs, exports the CSV and sets the retention', async () => {
    const watched = await openPage(browser, 'web-report');
    const { page } = watched;
    // Full-page shots from the top, so the fixed header sits where it belongs.
    const shot = async (name: string) => {
      await page.evaluate(() => window.scrollTo(0, 0));
      await watched.screenshot(name);
    };
    await watched.context.addInitScript(() => localStorage.setItem('svc.language', 'en'));
    await signIn(page, install.entrance, 'console', ADMIN.username, ADMIN.password);
    await page.getByTestId('nav-reports').click();
    await page.getByTestId('report-page').waitFor();
    await settled(page);
    // Last 7 days by default: both days are inside it, nothing before it.
    await expect.poll(() => cardValue(page, 'playCount')).toBe(4);
    expect(await page.getByTestId('preset-last7d').getAttribute('aria-pressed')).toBe('true');
    const noPrevious = card(page, 'playCount').getByTestId('change');
    expect(await noPrevious.getAttribute('data-direction')).toBe('none');
    expect((await noPrevious.innerText()).trim()).toBe('—');
    await shot('last-7-days');

    // Yesterday: the cards against the day before, figures worked out by hand and as the API answers.
    await page.getByTestId('preset-yesterday').click();
    await expect.poll(() => cardValue(page, 'playCount')).toBe(3);
    await settled(page);
    const overview = reportOverviewResponseSchema.parse(
      await api('/api/auth/admin/reports/overview?preset=yesterday'),
    );
    for (const [key, expected] of Object.entries(YESTERDAY_CARDS)) {
      const shown = card(page, key);
      expect(await cardValue(page, key), key).toBe(expected.current);
      expect(Number(await shown.getByTestId('previous').getAttribute('data-value')), key).toBe(
        expected.previous,
      );
      expect(await shown.getByTestId('change').getAttribute('data-direction'), key).toBe(expected.direction);
      const fromApi = overview.cards[key as keyof typeof overview.cards];
      expect({ current: fromApi.current, previous: fromApi.previous }).toEqual({
        current: expected.current,
        previous: expected.previous,
      });
    }
    expect(await card(page, 'avgWatchMsPerUser').getByTestId('change').innerText()).toContain('-12.5%');
    expect(await card(page, 'activeUsers').getByTestId('change').innerText()).toContain('+100.0%');
    // A day is shown by hours whatever granularity was chosen, and the page says so.
    await expect.poll(() => page.getByTestId('effective-granularity').innerText()).toContain('Hour');
    const [mm, dd] = YESTERDAY.slice(5).split('-');
    await expect
      .poll(() => page.getByTestId('timeline-chart').locator('svg text').allTextContents())
      .toContain(`${mm}-${dd} 00:00`);
    await expect.poll(() => page.getByTestId('concurrency-peak').getAttribute('data-value')).toBe('2');
    await page.getByTestId('heatmap-count').locator('svg').waitFor();
    await page.getByTestId('heatmap-duration').locator('svg').waitFor();
    await shot('yesterday');

    // The media type and single-user filters narrow every figure.
    await choose(page, 'filter-media-type', 'Episodes');
    await expect.poll(() => cardValue(page, 'playCount')).toBe(1);
    expect(await cardValue(page, 'watchMs')).toBe(2_100_000);
    await choose(page, 'filter-media-type', 'All types');
    await page.getByTestId('filter-user').fill('alice');
    await page.getByRole('option', { name: 'alice', exact: true }).click();
    await expect.poll(() => cardValue(page, 'activeUsers')).toBe(1);
    expect(await cardValue(page, 'playCount')).toBe(2);
    await settled(page);
    await shot('yesterday-alice');
    await page.getByRole('button', { name: 'Clear the user filter' }).click();
    await expect.poll(() => cardValue(page, 'activeUsers')).toBe(2);
    const refreshed = page.waitForResponse((response) => response.url().includes('/reports/overview'));
    await page.getByTestId('report-refresh').click();
    expect((await refreshed).status()).toBe(200);

    // Every preset asks the server for its own window.
    for (const preset of ['lastNight', 'today', 'last24h', 'last30d', 'last90d', 'last7d']) {
      const answered = page.waitForResponse(
        (response) =>
          response.url().includes('/reports/overview') && response.url().includes(`preset=${preset}`),
      );
      await page.getByTestId(`preset-${preset}`).click();
      expect((await answered).status()).toBe(200);
      expect(await page.getByTestId(`preset-${preset}`).getAttribute('aria-pressed')).toBe('true');
      await settled(page);
      if (preset === 'lastNight') {
        // Three hours: half-hour buckets.
        await expect.poll(() => page.getByTestId('effective-granularity').innerText()).toContain('Half hour');
        await expect
          .poll(() => page.getByTestId('timeline-chart').locator('svg text').allTextContents())
          .toContain(`${mm}-${dd} 21:00`);
        await shot('last-night');
      }
    }
    // Over a day the choice holds: by hour, then by week.
    await choose(page, 'filter-granularity', 'Hour');
    await settled(page);
    await expect.poll(() => page.getByTestId('effective-granularity').count()).toBe(0);
    const axisLabels = () => page.getByTestId('timeline-chart').locator('svg text').allTextContents();
    await expect
      .poll(async () => (await axisLabels()).some((text) => /^\d\d-\d\d \d\d:00$/.test(text)))
      .toBe(true);
    await choose(page, 'filter-granularity', 'Week');
    await settled(page);
    // Weeks are labelled by their Monday, without a time.
    await expect
      .poll(async () => (await axisLabels()).some((text) => /^\d\d-\d\d \d\d:00$/.test(text)))
      .toBe(false);
    await page.getByTestId('timeline-metric').getByText('Watch time').click();
    await choose(page, 'concurrency-granularity', 'Hour');
    await settled(page);
    await shot('last-7-days-by-week');

    // Rankings and drill-downs on yesterday.
    await page.getByTestId('preset-yesterday').click();
    await expect.poll(() => cardValue(page, 'playCount')).toBe(3);
    await settled(page);
    const topUsers = page.getByTestId('top-users-table');
    await expect.poll(() => topUsers.getByTestId('open-user').allInnerTexts()).toEqual(['alice', 'bob']);
    await page.getByTestId('top-users-sort').getByText('Traffic').click();
    await settled(page);
    await expect.poll(() => topUsers.getByTestId('open-user').allInnerTexts()).toEqual(['alice', 'bob']);

    await topUsers.getByTestId('open-user').first().click();
    const userDrill = page.getByTestId('user-drilldown');
    await userDrill.waitFor();
    await settled(page);
    await expect
      .poll(() => userDrill.getByTestId('user-stat-completion').getByTestId('value').innerText())
      .toBe('30.0%');
    await expect
      .poll(() => userDrill.getByTestId('user-stat-days').getByTestId('value').innerText())
      .toBe('1');
    await expect
      .poll(() => userDrill.getByTestId('user-stat-watch').getByTestId('value').innerText())
      .toBe('1 h 10 min');
    await expect.poll(() => userDrill.getByTestId('recent-play').count()).toBe(2);
    await expect
      .poll(() =>
        userDrill
          .getByTestId('play-progress')
          .evaluateAll((bars) => bars.map((bar) => bar.getAttribute('data-value'))),
      )
      .toEqual(['50', '10']);
    await userDrill.getByTestId('user-monthly').locator('svg').waitFor();
    await shot('user-drilldown');
    const yearAsked = page.waitForResponse((response) => response.url().includes('range=365d'));
    await userDrill.getByTestId('user-range').getByText('One year').click();
    expect((await yearAsked).status()).toBe(200);
    await settled(page);
    await shot('user-drilldown-one-year');
    await page.keyboard.press('Escape');
    await userDrill.waitFor({ state: 'detached' });

    await page.getByTestId('tab-top-media').click();
    const topMedia = page.getByTestId('top-media-table');
    await topMedia.waitFor();
    await expect
      .poll(() => topMedia.getByTestId('open-media').allInnerTexts())
      .toEqual(['Film A', 'The Show · Pilot', 'Film B, "Cut"']);
    await topMedia.getByTestId('open-media').first().click();
    const watchers = page.getByTestId('media-watchers');
    await watchers.getByTestId('media-watchers-table').waitFor();
    await expect.poll(() => watchers.getByTestId('open-user').allInnerTexts()).toEqual(['alice']);
    await shot('media-watchers');
    // A watcher opens that user's analysis; Back returns to the watchers.
    await watchers.getByTestId('open-user').first().click();
    await page.getByTestId('user-drilldown').waitFor();
    await page.getByTestId('drill-back').click();
    await page.getByTestId('media-watchers').waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('media-watchers').waitFor({ state: 'detached' });

    await page.getByTestId('tab-devices').click();
    const devices = page.getByTestId('devices');
    await devices.getByTestId('devices-clients').waitFor();
    await expect
      .poll(() => devices.getByTestId('devices-clients').getByTestId('open-device').allInnerTexts())
      .toEqual(['Infuse', 'Emby Web']);
    await expect
      .poll(() => devices.getByTestId('devices-platforms').getByTestId('open-device').allInnerTexts())
      .toEqual(['TV', 'Windows', 'iOS']);
    await expect.poll(() => devices.getByTestId('devices-total').getAttribute('data-value')).toBe('3');
    await shot('devices');
    await devices.getByTestId('devices-clients').getByTestId('open-device').first().click();
    const deviceUsers = page.getByTestId('device-users');
    await deviceUsers.getByTestId('device-users-table').waitFor();
    await expect.poll(() => deviceUsers.getByTestId('open-user').allInnerTexts()).toEqual(['alice']);
    await shot('device-users-client');
    await page.keyboard.press('Escape');
    await deviceUsers.waitFor({ state: 'detached' });
    await devices.getByTestId('devices-platforms').getByText('Windows').click();
    await page.getByTestId('device-users').getByTestId('device-users-table').waitFor();
    await expect
      .poll(() => page.getByTestId('device-users').getByTestId('open-user').allInnerTexts())
      .toEqual(['bob']);
    await shot('device-users-platform');
    await page.keyboard.press('Escape');
    await page.getByTestId('device-users').waitFor({ state: 'detached' });

    await page.getByTestId('tab-inactive-users').click();
    const inactive = page.getByTestId('inactive-users');
    await inactive.getByTestId('inactive-users-table').waitFor();
    await expect.poll(() => inactive.getByTestId('inactive-row').allInnerTexts()).toHaveLength(2);
    await expect.poll(() => inactive.getByTestId('inactive-users-table').innerText()).toContain('carol');
    await choose(page, 'inactive-users-page-size', '10');
    await settled(page);
    await expect
      .poll(() => inactive.getByTestId('inactive-users-total').getAttribute('data-value'))
      .toBe('2');
    await shot('inactive-users');

    // A custom window of the two days, by day; the CSV is exactly what report-csv.ts builds from the API.
    await page.getByTestId('preset-custom').click();
    await page.getByTestId('custom-from').fill(`${DAY_BEFORE}T00:00`);
    const today = shanghaiDate(new Date(Date.parse(at(YESTERDAY, '00:00')) + DAY_MS));
    await page.getByTestId('custom-to').fill(`${today}T00:00`);
    await choose(page, 'filter-granularity', 'Day');
    await expect.poll(() => cardValue(page, 'playCount')).toBe(4);
    await settled(page);
    await shot('custom-two-days');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('export-csv').click(),
    ]);
    const customWindow = `preset=custom&from=${encodeURIComponent(at(DAY_BEFORE, '00:00'))}&to=${encodeURIComponent(
      at(today, '00:00'),
    )}`;
    const customOverview = reportOverviewResponseSchema.parse(
      await api(`/api/auth/admin/reports/overview?${customWindow}`),
    );
    const customTimeline = reportTimelineResponseSchema.parse(
      await api(`/api/auth/admin/reports/timeline?${customWindow}&granularity=day`),
    );
    expect(customTimeline.granularity).toBe('day');
    expect(customTimeline.buckets).toHaveLength(2);
    expect(download.suggestedFilename()).toBe(`playback-report-${DAY_BEFORE}-${YESTERDAY}-day.csv`);
    expect(download.suggestedFilename()).toBe(reportCsvFileName(customOverview.range, 'day'));
    const bytes = readFileSync(await download.path());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const expected = Buffer.from(
      buildReportCsv(customOverview, customTimeline, reportsMessages.en.csv),
      'utf8',
    );
    expect(bytes.toString('utf8')).toBe(expected.toString('utf8'));
    expect(bytes.equals(expected)).toBe(true);
    expect(bytes.toString('utf8')).toContain(`\r\nPlay count,4,0,\r\n`);

    // Retention: shortening asks first; the value in force follows the answer.
    const retention = page.getByTestId('retention-card');
    await retention.scrollIntoViewIfNeeded();
    await expect
      .poll(() => retention.getByTestId('retention-in-force').getAttribute('data-value'))
      .toBe('90');
    await retention.getByTestId('retention-shortcut-30').click();
    await retention.getByTestId('retention-save').click();
    await page.getByTestId('retention-confirm-button').waitFor();
    await shot('retention-confirm');
    await page.getByTestId('retention-confirm-button').click();
    await expect
      .poll(() => retention.getByTestId('retention-in-force').getAttribute('data-value'))
      .toBe('30');
    expect((await api('/api/auth/admin/activity-log/retention')).days).toBe(30);
    await retention.getByTestId('retention-days').fill('400');
    await retention.getByTestId('retention-save').click();
    await expect
      .poll(() => retention.getByTestId('retention-in-force').getAttribute('data-value'))
      .toBe('400');
    expect((await api('/api/auth/admin/activity-log/retention')).days).toBe(400);
    // Out of the bounds: refused in the form, nothing sent.
    await retention.getByTestId('retention-days').fill('5');
    await retention.getByTestId('retention-save').click();
    await retention.getByText('Enter a whole number between 7 and 3650').waitFor();
    expect((await api('/api/auth/admin/activity-log/retention')).days).toBe(400);
    await shot('retention');

    // Chinese and the dark theme: the charts follow.
    await page.getByTestId('preset-yesterday').click();
    await page.getByTestId('language-switch').getByText('中文').click();
    await page.getByText('活跃用户').first().waitFor();
    await page.getByText('请输入 7 到 3650 之间的整数').waitFor();
    await page.getByTestId('theme-toggle').click();
    await expect.poll(() => page.getByTestId('timeline-chart').getAttribute('data-scheme')).toBe('dark');
    await expect
      .poll(() => page.getByTestId('timeline-chart').locator('svg text').allTextContents())
      .toContain('观看时长（小时）');
    await settled(page);
    await shot('yesterday-zh-dark');
    await page.getByTestId('tab-top-users').click();
    await page.getByTestId('top-users-table').getByTestId('open-user').first().click();
    await page.getByTestId('user-drilldown').getByTestId('user-monthly').locator('svg').waitFor();
    await settled(page);
    await shot('user-drilldown-zh-dark');

    expect(watched.problems).toEqual([]);
    await watched.context.close();
  });

  it('fits a phone’s width', async () => {
    const watched = await openPage(browser, 'web-report-phone', {
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
    });
    const { page } = watched;
    await signIn(page, install.entrance, 'console', ADMIN.username, ADMIN.password);
    await page.goto(`${install.entrance}/console/reports`);
    await page.getByTestId('preset-yesterday').click();
    await expect.poll(() => cardValue(page, 'playCount')).toBe(3);
    await settled(page);
    await page.getByTestId('timeline-chart').locator('svg').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await watched.screenshot('phone');
    await page.getByTestId('top-users-table').getByTestId('open-user').first().click();
    await page.getByTestId('user-drilldown').getByTestId('recent-plays').waitFor();
    await settled(page);
    await watched.screenshot('phone-user-drilldown');
    expect(watched.problems).toEqual([]);
    await watched.context.close();
  });
});
