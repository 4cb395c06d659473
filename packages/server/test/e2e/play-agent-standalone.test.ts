import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Jellyfin } from '@jellyfin/sdk';
import {
  getLibraryApi,
  getMediaInfoApi,
  getSessionApi,
  getUserViewApi,
} from '@jellyfin/sdk/lib/utils/api/index.js';
import { BaseItemKind } from '@jellyfin/sdk/lib/generated-client/models/base-item-kind.js';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVICE_TOKEN_HEADER } from '../../src/platform/service-token.js';
import { installBackends } from '../support/install-backends.js';
import { mediaFixtures } from '../support/media-fixtures.js';
import { call, type Json } from '../support/playback-install.js';
import { portEnv } from '../support/ports.js';
import { standaloneWithLibrary } from '../support/standalone-setup.js';
import { isAlive, runSvc, type SvcProcess } from '../support/svc-process.js';

const run = promisify(execFile);
const started: SvcProcess[] = [];
const folders: string[] = [];

afterAll(() => {
  for (const svc of started) {
    if (svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill('SIGKILL');
    for (const pid of svc.childPids()) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/**
 * The real `svc standalone` program with the generated library: a Jellyfin client plays a movie through
 * the built-in play-agent, and the playback it reported right before Ctrl-C is in the activity log after
 * a restart (the supervisor stops the play-agent first, which sends what it has queued).
 */
describe.each(installBackends())('players against svc standalone on $label', (backend) => {
  afterAll(() => backend.cleanup());

  it(
    'plays with the Jellyfin SDK and keeps the last reports across a clean stop',
    { timeout: 240_000 },
    async () => {
      const fixtures = await mediaFixtures();
      const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-e2e-play-'));
      folders.push(dataDir);
      const env = { ...(await portEnv()), ...backend.env, SVC_DATA_DIR: dataDir };
      let svc = runSvc(['standalone'], env);
      started.push(svc);
      await svc.waitForLog(/standalone edition is up/, 120_000);
      const entrance = `http://127.0.0.1:${env.SVC_FRONTEND_PORT}`;
      const playAgent = `http://${env.PLAY_AGENT_LISTEN}`;

      const { admin } = await standaloneWithLibrary(entrance, fixtures.library, '/Movies');
      const created = await admin('POST', '/api/auth/admin/users', {
        username: 'viewer',
        password: 'viewer-password-1',
      });
      const viewerId = String(created.body.id);

      const jellyfin = new Jellyfin({
        clientInfo: { name: 'Jellyfin Media Player', version: '1.11.1' },
        deviceInfo: { name: 'Desk', id: 'jmp-desk-1' },
      });
      const api = jellyfin.createApi(playAgent);
      const auth = await api.authenticateUserByName('viewer', 'viewer-password-1');
      const userId = auth.data.User!.Id!;
      const views = await getUserViewApi(api).getUserViews({ userId });
      const movies = await getLibraryApi(api).getItems({
        userId,
        parentId: views.data.Items![0]!.Id!,
        recursive: true,
        includeItemTypes: [BaseItemKind.Movie],
      });
      expect(movies.data.TotalRecordCount).toBe(fixtures.movies.length);
      const heat = movies.data.Items!.find((item) => item.Name === 'Heat')!;
      const info = await getMediaInfoApi(api).getPostedPlaybackInfo({
        itemId: heat.Id!,
        userId,
        playbackInfoDto: {},
      });
      const playSessionId = info.data.PlaySessionId!;
      const url = `${playAgent}/Videos/${heat.Id!}/stream?static=true&mediaSourceId=${info.data.MediaSources![0]!.Id!}&api_key=${auth.data.AccessToken!}`;
      const probe = await run('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'stream=codec_type',
        '-of',
        'csv=p=0',
        url,
      ]);
      expect(probe.stdout).toMatch(/video/);

      const sessions = getSessionApi(api);
      await sessions.reportPlaybackStart({
        playbackStartInfo: { ItemId: heat.Id!, PlaySessionId: playSessionId, PositionTicks: 0 },
      });
      await sessions.reportPlaybackStopped({
        playbackStopInfo: { ItemId: heat.Id!, PlaySessionId: playSessionId, PositionTicks: 20_000_000 },
      });

      // Ctrl-C right after the reports: they are still queued in the play-agent.
      svc.child.kill('SIGINT');
      expect((await svc.exited).code).toBe(0);

      svc = runSvc(['standalone'], env);
      started.push(svc);
      await svc.waitForLog(/standalone edition is up/, 120_000);
      const serviceToken = readFileSync(path.join(dataDir, 'secrets', 'service-token'), 'utf8').trim();
      const events = await call(
        `http://127.0.0.1:${env.SVC_USER_PORT}`,
        'GET',
        `/api/auth/internal/activity?userId=${viewerId}&limit=50`,
        {
          headers: { [SERVICE_TOKEN_HEADER]: serviceToken },
        },
      );
      const ours = (events.body.events as Json[])
        .filter((event) => event.sessionId === playSessionId)
        .reverse();
      expect(ours.map((event) => event.eventType)).toEqual(['start', 'stop']);
      expect(ours[0]).toMatchObject({
        client: 'Jellyfin Media Player',
        deviceName: 'Desk',
        mediaName: 'Heat',
        mediaType: 'movie',
      });
      expect(ours.reduce((sum, event) => sum + Number(event.bytesDelta), 0)).toBeGreaterThan(0);
      svc.child.kill('SIGINT');
      expect((await svc.exited).code).toBe(0);
    },
  );
});
