import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVICE_TOKEN_HEADER } from '../../src/platform/service-token.js';
import { call, type Json } from '../support/playback-install.js';
import { portEnv } from '../support/ports.js';
import { waitFor } from '../support/runtime.js';
import { standaloneWithLibrary } from '../support/standalone-setup.js';
import { isAlive, runSvc, type SvcProcess } from '../support/svc-process.js';

const run = promisify(execFile);
const started: SvcProcess[] = [];
const folders: string[] = [];
const readers: http.ClientRequest[] = [];

afterAll(() => {
  for (const reader of readers) reader.destroy();
  for (const svc of started) {
    if (svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill('SIGKILL');
    for (const pid of svc.childPids()) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

const APP = 'Emby Client="Emby Theater", Device="Living room", DeviceId="theater-1", Version="3.0.20"';

/** The pid the supervisor logged for one of its processes. */
function pidOf(svc: SvcProcess, name: string): number {
  const match = new RegExp(`"process":"${name}","pid":(\\d+),"msg":"process starting"`).exec(svc.stdout());
  if (!match) throw new Error(`no pid logged for ${name}`);
  return Number(match[1]);
}

/**
 * A stop while a film is streaming and the user service is already gone (a machine going down, the
 * control process killed first): the play-agent keeps the playback's last event in its folder and sends
 * it at the next start, so the activity log does not lose the play (docs/activity-log.md).
 */
describe('playback reports across a stop during streaming (embedded database)', () => {
  it(
    'keeps what the user service could not take and delivers it after the restart',
    { timeout: 600_000 },
    async () => {
      const work = mkdtempSync(path.join(tmpdir(), 'svc-e2e-stop-'));
      folders.push(work);
      const dataDir = path.join(work, 'data');
      const library = path.join(work, 'library');
      const folder = path.join(library, 'Long Night (1999)');
      mkdirSync(folder, { recursive: true });
      // Uncompressed, so a reader that stops reading keeps its connection open (socket buffers fill).
      await run('ffmpeg', [
        ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=640x360:rate=10', '-t', '10'],
        ...['-c:v', 'rawvideo', '-pix_fmt', 'yuv420p', path.join(folder, 'Long Night (1999).mkv')],
      ]);
      const env = { ...(await portEnv()), SVC_DB_MODE: 'bundled', SVC_DATA_DIR: dataDir };
      let svc = runSvc(['standalone'], env);
      started.push(svc);
      await svc.waitForLog(/standalone edition is up/, 500_000);
      const entrance = `http://127.0.0.1:${env.SVC_FRONTEND_PORT}`;
      const playAgent = `http://${env.PLAY_AGENT_LISTEN}`;
      const { admin } = await standaloneWithLibrary(entrance, library, '/');
      const viewer = await admin('POST', '/api/auth/admin/users', {
        username: 'viewer',
        password: 'viewer-password-1',
      });
      const viewerId = String(viewer.body.id);
      const signedIn = await call(playAgent, 'POST', '/Users/AuthenticateByName', {
        headers: { 'x-emby-authorization': APP },
        body: { Username: 'viewer', Pw: 'viewer-password-1' },
      });
      expect(signedIn.status, signedIn.text).toBe(200);
      const token = String(signedIn.body.AccessToken);
      const items = await call(
        playAgent,
        'GET',
        `/Users/${viewerId}/Items?Recursive=true&IncludeItemTypes=Movie`,
        {
          headers: { 'x-emby-token': token },
        },
      );
      const film = (items.body.Items as Json[])[0]!;

      const serviceToken = readFileSync(path.join(dataDir, 'secrets', 'service-token'), 'utf8').trim();
      const activity = async () =>
        (
          await call(
            `http://127.0.0.1:${env.SVC_USER_PORT}`,
            'GET',
            `/api/auth/internal/activity?userId=${viewerId}&limit=50`,
            {
              headers: { [SERVICE_TOKEN_HEADER]: serviceToken },
            },
          )
        ).body.events as Json[] | undefined;
      const ofSession = async () =>
        ((await activity()) ?? []).filter((event) => event.sessionId === 'night-1').reverse();

      // The player reports the start and streams; it stops reading like a player with a full buffer.
      const playing = await call(playAgent, 'POST', '/Sessions/Playing', {
        headers: { 'x-emby-token': token },
        body: { ItemId: film.Id, PlaySessionId: 'night-1', PositionTicks: 0 },
      });
      expect(playing.status, playing.text).toBeLessThan(300);
      await new Promise<void>((resolve, reject) => {
        const request = http.get(
          `${playAgent}/Videos/${String(film.Id)}/stream.mkv?Static=true&api_key=${token}`,
          (response) => {
            response.once('data', () => {
              response.pause();
              resolve();
            });
          },
        );
        request.on('error', reject);
        readers.push(request);
      });
      await waitFor(async () =>
        (await ofSession()).some((event) => event.eventType === 'start') ? true : undefined,
      );

      // The control process (user service included) dies first; then the whole install is stopped.
      process.kill(pidOf(svc, 'control'), 'SIGKILL');
      svc.child.kill('SIGINT');
      await svc.exited;
      expect(svc.stdout()).toMatch(/they are kept and sent at the next start/);
      const spoolFile = path.join(dataDir, 'play-agent', 'pending-reports-node-local-play-agent.json');
      expect(existsSync(spoolFile)).toBe(true);
      expect(svc.stdout()).not.toMatch(/could not be written before exit/);

      svc = runSvc(['standalone'], env);
      started.push(svc);
      await svc.waitForLog(/standalone edition is up/, 500_000);
      const ended = await waitFor(async () => {
        const events = await ofSession();
        return events.find((event) => event.eventType === 'stop');
      }, 120_000);
      expect(ended).toMatchObject({ result: 'interrupted', reason: 'the play-agent stopped' });
      expect(existsSync(spoolFile)).toBe(false);
      // Sent once: the stop event is not doubled by the resend.
      expect((await ofSession()).filter((event) => event.eventType === 'stop')).toHaveLength(1);
      svc.child.kill('SIGINT');
      expect((await svc.exited).code).toBe(0);
    },
  );
});
