import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/platform/cache/index.js';
import { SERVICE_TOKEN_HEADER } from '../../src/platform/service-token.js';
import { fromProtocolId } from '../../src/services/play-agent/proto-a/ids.js';
import {
  BARE_STREAM_GRACE_MS,
  BARE_STREAM_MIN_OPEN_MS,
} from '../../src/services/play-agent/reporting/bare-streams.js';
import { SESSION_IDLE_MS } from '../../src/services/play-agent/reporting/play-sessions.js';
import { installBackends } from '../support/install-backends.js';
import { call, startPlaybackInstall, type Json, type PlaybackInstall } from '../support/playback-install.js';
import { waitFor } from '../support/runtime.js';

const run = promisify(execFile);

/** The system clock moved forward by hand: the install keeps running in real time, the test jumps ahead. */
class JumpingClock implements Clock {
  private offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
  advance(ms: number): void {
    this.offset += ms;
  }
}

/** How an Emby app signs in: its client and device in the authorization header. */
const ANDROID_APP = 'Emby Client="Emby for Android", Device="Pixel", DeviceId="pixel-7-1", Version="3.4.20"';

interface Item extends Json {
  /** The protocol's id (compact hex). */
  Id: string;
  Name: string;
  /** The media service's id, as the activity log, the dashboard and the report name the item. */
  mediaId: string;
}

/**
 * What players that send no playback reports leave in the activity log, the dashboard and the report, and
 * who requests that carry only a token are attributed to (docs/activity-log.md).
 */
describe.each(installBackends())('activity of streams on $label', (backend) => {
  const clock = new JumpingClock();
  let env: PlaybackInstall;
  let userId: string;
  let token: string;
  let items: Item[];
  let longTake: Item;
  let mediaRoot: string;

  beforeAll(async () => {
    // A file large enough that a reader who stops reading keeps its connection open (socket buffers fill).
    mediaRoot = await mkdtemp(path.join(tmpdir(), 'svc-long-take-'));
    const folder = path.join(mediaRoot, 'Long Take (2001)');
    await mkdir(folder);
    await run('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=640x360:rate=10', '-t', '10'],
      ...['-c:v', 'rawvideo', '-pix_fmt', 'yuv420p', path.join(folder, 'Long Take (2001).mkv')],
    ]);
    env = await startPlaybackInstall(backend.env, {}, { clock });
    await env.addLocalLibrary('Long', 'movies', mediaRoot);
    userId = await env.createUser('walker', 'walker-password-1');
    const login = await call(env.playAgent, 'POST', '/Users/AuthenticateByName', {
      headers: { 'x-emby-authorization': ANDROID_APP },
      body: { Username: 'walker', Pw: 'walker-password-1' },
    });
    expect(login.status, login.text).toBe(200);
    token = String(login.body.AccessToken);
    const found = await call(
      env.playAgent,
      'GET',
      `/Users/${userId}/Items?Recursive=true&IncludeItemTypes=Movie`,
      {
        headers: { 'x-emby-token': token },
      },
    );
    items = (found.body.Items as Item[]).map((entry) => ({ ...entry, mediaId: fromProtocolId(entry.Id)! }));
    longTake = items.find((item) => item.Name === 'Long Take')!;
    expect(longTake).toBeDefined();
  }, 300_000);

  afterAll(async () => {
    await env?.stop();
    await backend.cleanup();
    await rm(mediaRoot, { recursive: true, force: true });
  });

  const item = (name: string) => items.find((entry) => entry.Name === name)!;

  async function activity(): Promise<Json[]> {
    const answer = await call(
      env.install.url('user'),
      'GET',
      `/api/auth/internal/activity?userId=${userId}&limit=500`,
      {
        headers: { [SERVICE_TOKEN_HEADER]: env.install.context.serviceToken },
      },
    );
    expect(answer.status, answer.text).toBe(200);
    return answer.body.events as Json[];
  }
  const eventsOf = async (mediaId: string) => (await activity()).filter((event) => event.mediaId === mediaId);
  const waitForEvent = (mediaId: string, eventType: string) =>
    waitFor(
      async () => (await eventsOf(mediaId)).find((event) => event.eventType === eventType),
      45_000,
      200,
    );

  async function playingNow(): Promise<Json[]> {
    const answer = await env.admin('GET', '/api/auth/admin/dashboard/sessions');
    expect(answer.status, answer.text).toBe(200);
    return answer.body.sessions as Json[];
  }

  async function reportedMedia(): Promise<Json[]> {
    const answer = await env.admin('GET', '/api/auth/admin/reports/top-media?preset=last24h&sort=playCount');
    expect(answer.status, answer.text).toBe(200);
    return answer.body.items as Json[];
  }

  it('ffprobe on a stream leaves no session; a report sent with only X-Emby-Token is the signed-in app’s', async () => {
    const heat = item('Heat');
    const matrix = item('The Matrix');
    const probe = await run('ffprobe', [
      ...['-v', 'error', '-show_entries', 'format=duration', '-of', 'json'],
      `${env.playAgent}/Videos/${heat.Id}/stream?Static=true&api_key=${token}`,
    ]);
    expect(
      Number((JSON.parse(probe.stdout) as { format: { duration: string } }).format.duration),
    ).toBeGreaterThan(1);

    // A reported play with the token alone (no client or device in the request) on another item.
    const started = await call(env.playAgent, 'POST', '/Sessions/Playing', {
      headers: { 'x-emby-token': token, 'user-agent': 'axios/1.7.2' },
      body: { ItemId: matrix.Id, PlaySessionId: 'reported-1', PositionTicks: 0 },
    });
    expect(started.status, started.text).toBeLessThan(300);

    // Minutes later: the reported session times out, which shows that the play-agent looked at everything.
    clock.advance(SESSION_IDLE_MS + 60_000);
    const timedOut = await waitForEvent(matrix.mediaId, 'stop');
    expect(timedOut).toMatchObject({ sessionId: 'reported-1', result: 'timeout' });
    expect(await eventsOf(heat.mediaId)).toEqual([]);
    expect((await playingNow()).filter((session) => session.mediaId === heat.mediaId)).toEqual([]);
    expect((await reportedMedia()).filter((row) => row.mediaId === heat.mediaId)).toEqual([]);
    for (const event of await eventsOf(matrix.mediaId)) {
      expect(event).toMatchObject({ client: 'Emby for Android', deviceName: 'Pixel', deviceId: 'pixel-7-1' });
    }
    // The report places it by the app, not by the letters "ios" in "axios".
    const devices = await env.admin('GET', `/api/auth/admin/reports/devices?preset=last24h&userId=${userId}`);
    expect(devices.status, devices.text).toBe(200);
    expect((devices.body.platforms as Json[]).map((row) => row.platform)).toEqual(['android']);
  });

  it('a report-less stream that plays is a session while its connection is open, ended when it closes', async () => {
    const reader = await new Promise<{ request: http.ClientRequest; response: http.IncomingMessage }>(
      (resolve, reject) => {
        const request = http.get(
          `${env.playAgent}/Videos/${longTake.Id}/stream.mkv?Static=true&api_key=${token}`,
          { headers: { 'user-agent': 'mpv 0.37.0' } },
          (response) => {
            // Read one chunk, then stop reading like a player with a full buffer.
            response.once('data', () => {
              response.pause();
              resolve({ request, response });
            });
          },
        );
        request.on('error', reject);
      },
    );
    try {
      expect(reader.response.statusCode).toBe(200);
      clock.advance(BARE_STREAM_MIN_OPEN_MS + 1_000);
      const start = await waitForEvent(longTake.mediaId, 'start');
      expect(start).toMatchObject({
        client: 'Emby for Android',
        deviceName: 'Pixel',
        deviceId: 'pixel-7-1',
        userAgent: 'mpv 0.37.0',
      });
      expect(Number(start.bytesDelta)).toBeGreaterThan(0);
      const progress = await waitForEvent(longTake.mediaId, 'progress');
      expect(Number(progress.durationMs)).toBeGreaterThanOrEqual(BARE_STREAM_MIN_OPEN_MS);
      const live = (await playingNow()).filter((session) => session.mediaId === longTake.mediaId);
      expect(live).toMatchObject([
        { sessionId: start.sessionId, client: 'Emby for Android', deviceName: 'Pixel' },
      ]);
    } finally {
      reader.request.destroy();
    }

    // The connection is gone: after the grace time the session ends, on the dashboard and in the report alike.
    await waitFor(
      async () => {
        clock.advance(BARE_STREAM_GRACE_MS);
        return (await eventsOf(longTake.mediaId)).find((event) => event.eventType === 'stop');
      },
      30_000,
      1_000,
    );
    expect((await playingNow()).filter((session) => session.mediaId === longTake.mediaId)).toEqual([]);
    expect((await reportedMedia()).filter((row) => row.mediaId === longTake.mediaId)).toMatchObject([
      { mediaId: longTake.mediaId, playCount: 1 },
    ]);
  });
});
