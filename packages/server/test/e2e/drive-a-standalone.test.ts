import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { startDriveAServer, type DriveAServer } from '../support/drive-servers/drive-a-server.js';
import { installBackends } from '../support/install-backends.js';
import { mediaFixtures } from '../support/media-fixtures.js';
import { call, type Json } from '../support/playback-install.js';
import { finishedSessionEvents, reportStartStop } from '../support/play-reports.js';
import { portEnv } from '../support/ports.js';
import { waitFor } from '../support/runtime.js';
import { driveLibrary, standaloneAdmin } from '../support/standalone-setup.js';
import { isAlive, runSvc, type SvcProcess } from '../support/svc-process.js';

const TOKEN = 'drive-a-install-token';
const compact = (id: string) => id.replace(/-/g, '');

const started: SvcProcess[] = [];
const folders: string[] = [];
let drive: DriveAServer | undefined;

afterAll(async () => {
  for (const svc of started) {
    if (svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill('SIGKILL');
    for (const pid of svc.childPids()) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  await drive?.stop();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/**
 * The real `svc standalone` program with a DRIVE_A library (the loopback DRIVE_A server: signed links with
 * an expiry): a user in the default proxied mode gets the bytes through the play-agent, a user in redirect
 * mode gets a 302 to the drive's signed link once the global switch reached the play-agent, and both plays
 * are in the activity log (the redirected one with 0 bytes).
 */
describe.each(installBackends())('a DRIVE_A library in svc standalone on $label', (backend) => {
  afterAll(() => backend.cleanup());

  it('plays proxied and redirected (302), both in the activity log', { timeout: 300_000 }, async () => {
    const fixtures = await mediaFixtures();
    const heat = fixtures.movies.find((movie) => movie.title === 'Heat')!;
    const film = readFileSync(path.join(fixtures.library, heat.file));
    drive = await startDriveAServer(
      {
        '/Films/Heat.1995.1080p.BluRay.x264-GRP.mp4': film,
        '/Films/Alien.1979.1080p.BluRay.x264-GRP.mp4': film,
      },
      { token: TOKEN },
    );

    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-e2e-drive-a-'));
    folders.push(dataDir);
    const env = {
      ...(await portEnv()),
      ...backend.env,
      SVC_DATA_DIR: dataDir,
      PLAY_AGENT_DRIVE_A_REDIRECT_ALLOWED_HOSTS: '127.0.0.1',
      SVC_PLAY_AGENT_POLICY_REFRESH_SECONDS: '2',
    };
    const svc = runSvc(['standalone'], env);
    started.push(svc);
    await svc.waitForLog(/standalone edition is up/, 120_000);
    const entrance = `http://127.0.0.1:${env.SVC_FRONTEND_PORT}`;
    const playAgent = `http://${env.PLAY_AGENT_LISTEN}`;
    const admin = await standaloneAdmin(entrance);

    const libraryId = await driveLibrary(
      admin,
      'drive_a',
      { url: drive.url, token: TOKEN, allowPrivateNetwork: true },
      { root: '/' },
      '/Films',
    );
    const policy = await admin('PUT', '/api/config/play-agent/policy', { driveARedirect: true });
    expect(policy.status, policy.text).toBe(200);

    const signedIn = async (username: string, mode: 'proxy' | 'redirect') => {
      const created = await admin('POST', '/api/auth/admin/users', {
        username,
        password: `${username}-pass-1`,
      });
      expect(created.status, created.text).toBe(201);
      const id = String(created.body.id);
      const patched = await admin('PATCH', `/api/auth/admin/users/${id}`, { driveAPlayMode: mode });
      expect(patched.status, patched.text).toBe(200);
      const signIn = await call(playAgent, 'POST', '/emby/Users/AuthenticateByName', {
        headers: {
          'x-emby-authorization': `MediaBrowser Client="Emby for Android", DeviceId="dev-${username}"`,
        },
        body: { Username: username, Pw: `${username}-pass-1` },
      });
      expect(signIn.status, signIn.text).toBe(200);
      return { id, token: String(signIn.body.AccessToken), userId: String((signIn.body.User as Json).Id) };
    };
    const proxied = await signedIn('proxied', 'proxy');
    const redirected = await signedIn('redirected', 'redirect');
    const listed = await call(
      playAgent,
      'GET',
      `/Users/${proxied.userId}/Items?ParentId=${compact(libraryId)}&Recursive=true&IncludeItemTypes=Movie`,
      { headers: { 'x-emby-token': proxied.token } },
    );
    expect(listed.status, listed.text).toBe(200);
    const items: Record<string, string> = {};
    for (const item of listed.body.Items as Json[]) items[String(item.Name)] = String(item.Id);
    expect(Object.keys(items).sort(), listed.text).toEqual(['Alien', 'Heat']);
    const itemId = items.Heat!;
    const stream = (token: string, id = itemId) =>
      request(`${playAgent}/Videos/${id}/stream?static=true&api_key=${token}`);

    const report = (token: string, session: string) => reportStartStop(playAgent, token, itemId, session);
    const activity = (userId: string, session: string) =>
      finishedSessionEvents({ userPort: env.SVC_USER_PORT, dataDir, userId, session });
    const bytesOf = (events: Json[]) => events.reduce((sum, event) => sum + Number(event.bytesDelta), 0);

    // Proxied (the default mode): the bytes come through the play-agent, read from the drive's links.
    const plain = await stream(proxied.token);
    expect(plain.statusCode).toBe(200);
    expect(Buffer.from(await plain.body.arrayBuffer()).equals(film)).toBe(true);
    await report(proxied.token, 'drive-a-proxied');
    const proxiedEvents = await activity(proxied.id, 'drive-a-proxied');
    expect(compact(String(proxiedEvents[0]!.mediaId))).toBe(itemId);
    expect(bytesOf(proxiedEvents)).toBeGreaterThanOrEqual(film.length);

    // Redirect mode: a 302 once the policy refresh brought the switch to the play-agent (waited for on
    // another item: the proxied answers before it would count bytes for the play below).
    await waitFor(async () => {
      const answer = await stream(redirected.token, items.Alien);
      await answer.body.dump();
      return answer.statusCode === 302 ? true : undefined;
    }, 60_000);
    const gets = drive.calls.get;
    const answer = await stream(redirected.token);
    await answer.body.dump();
    expect(answer.statusCode).toBe(302);
    const location = String(answer.headers.location);
    expect(location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/d\/Films\/Heat[^?]*\?expires=\d+&sign=/);
    expect(drive.calls.get).toBeGreaterThan(gets);
    const direct = await request(location);
    expect(Buffer.from(await direct.body.arrayBuffer()).equals(film)).toBe(true);
    await report(redirected.token, 'drive-a-redirected');
    const redirectedEvents = await activity(redirected.id, 'drive-a-redirected');
    expect(redirectedEvents.map((event) => event.eventType).sort()).toEqual(['start', 'stop']);
    expect(bytesOf(redirectedEvents)).toBe(0);

    svc.child.kill('SIGINT');
    expect((await svc.exited).code).toBe(0);
  });
});
