import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { startCdnServers, type CdnServers } from '../support/drive-servers/cdn-servers.js';
import { startDohServer, type DohServer } from '../support/drive-servers/doh-server.js';
import { startDriveBServer, type DriveBServer } from '../support/drive-servers/drive-b-server.js';
import { createTestCa, type TestCa } from '../support/drive-servers/test-ca.js';
import { installBackends } from '../support/install-backends.js';
import { mediaFixtures } from '../support/media-fixtures.js';
import { call, type Json } from '../support/playback-install.js';
import { finishedSessionEvents, reportStartStop } from '../support/play-reports.js';
import { portEnv } from '../support/ports.js';
import { waitFor } from '../support/runtime.js';
import { driveLibrary, standaloneAdmin } from '../support/standalone-setup.js';
import { isAlive, runSvc, type SvcProcess } from '../support/svc-process.js';

const HOSTNAME = 'cdn.drive-b-install.test';
const TOKEN = 'drive-b-install-token';
const PLAY_AGENT = 'node-local-play-agent';
const SLOW = '127.0.0.2';
const FAST = '127.0.0.3';
const MEDIUM = '127.0.0.4';
/** Not in DNS: reached only as a manual address. */
const MANUAL = '127.0.0.5';
const MiB = 1024 * 1024;
const compact = (id: string) => id.replace(/-/g, '');

const started: SvcProcess[] = [];
const folders: string[] = [];
let ca: TestCa | undefined;
let drive: DriveBServer | undefined;
let cdn: CdnServers | undefined;
let doh: DohServer | undefined;

afterAll(async () => {
  for (const svc of started) {
    if (svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill('SIGKILL');
    for (const pid of svc.childPids()) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  await Promise.allSettled([cdn?.stop(), doh?.stop(), drive?.stop()]);
  ca?.remove();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** The pid the supervisor last reported for the built-in play-agent process. */
function playAgentPid(svc: SvcProcess): number | null {
  const pids = [
    ...svc
      .stdout()
      .matchAll(/"process":"node-local-play-agent","pid":(\d+),"msg":"process (?:starting|restarting)"/g),
  ];
  return pids.length > 0 ? Number(pids[pids.length - 1]![1]) : null;
}

/**
 * The real `svc standalone` program with a DRIVE_B library: the drive's API server, its CDN on 127.0.0.2–5
 * over HTTPS (certificate of the CDN host name from a test CA; the host name is in no DNS but the test's
 * DoH resolver), a library scanned from the drive, a PROTO_A play through the built-in play-agent read
 * from the address the CDN preference chose, the play in the activity log; then manual addresses set
 * through the console's CDN route survive a restart of the play-agent process and carry the next play.
 */
describe.each(installBackends())('a DRIVE_B library in svc standalone on $label', (backend) => {
  afterAll(() => backend.cleanup());

  it(
    'plays through the chosen CDN address and keeps manual addresses across a play-agent restart',
    { timeout: 300_000 },
    async () => {
      const fixtures = await mediaFixtures();
      const heat = fixtures.movies.find((movie) => movie.title === 'Heat')!;
      const film = readFileSync(path.join(fixtures.library, heat.file));
      const tree = { '/Films/Heat.1995.1080p.BluRay.x264-GRP.mp4': film };
      ca = createTestCa([HOSTNAME]);
      drive = await startDriveBServer(tree, { token: TOKEN });
      cdn = await startCdnServers({
        hostname: HOSTNAME,
        ca,
        tree,
        tokens: drive.tokens,
        profiles: {
          [SLOW]: { latencyMs: 150, bytesPerSecond: 4 * MiB },
          [FAST]: { latencyMs: 2, bytesPerSecond: 64 * MiB },
          [MEDIUM]: { latencyMs: 60, bytesPerSecond: 16 * MiB },
          [MANUAL]: { latencyMs: 90, bytesPerSecond: 16 * MiB },
        },
      });
      doh = await startDohServer(ca, { [HOSTNAME]: [SLOW, FAST, MEDIUM] });

      const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-e2e-drive-b-'));
      folders.push(dataDir);
      const env = {
        ...(await portEnv()),
        ...backend.env,
        SVC_DATA_DIR: dataDir,
        PLAY_AGENT_CDN_DOH_URLS: doh.url,
        PLAY_AGENT_CDN_CA_FILE: ca.caFile,
        PLAY_AGENT_CDN_ALLOW_PRIVATE_IPS: 'true',
      };
      const svc = runSvc(['standalone'], env);
      started.push(svc);
      await svc.waitForLog(/standalone edition is up/, 120_000);
      const entrance = `http://127.0.0.1:${env.SVC_FRONTEND_PORT}`;
      const playAgent = `http://${env.PLAY_AGENT_LISTEN}`;
      const admin = await standaloneAdmin(entrance);

      const libraryId = await driveLibrary(
        admin,
        'drive_b',
        { url: drive.url, cdnHost: cdn.host, accessToken: TOKEN, allowPrivateNetwork: true },
        {},
        '/Films',
      );

      const viewer = await admin('POST', '/api/auth/admin/users', {
        username: 'viewer',
        password: 'viewer-password-1',
      });
      expect(viewer.status, viewer.text).toBe(201);
      const viewerId = String(viewer.body.id);
      const signIn = await call(playAgent, 'POST', '/emby/Users/AuthenticateByName', {
        headers: { 'x-emby-authorization': 'MediaBrowser Client="Emby for Android", DeviceId="dev-drive-b"' },
        body: { Username: 'viewer', Pw: 'viewer-password-1' },
      });
      expect(signIn.status, signIn.text).toBe(200);
      const token = String(signIn.body.AccessToken);
      const userId = String((signIn.body.User as Json).Id);
      const listed = await call(
        playAgent,
        'GET',
        `/Users/${userId}/Items?ParentId=${compact(libraryId)}&Recursive=true&IncludeItemTypes=Movie`,
        { headers: { 'x-emby-token': token } },
      );
      const items = listed.body.Items as Json[];
      expect(
        items.map((item) => item.Name),
        listed.text,
      ).toEqual(['Heat']);
      const itemId = String(items[0]!.Id);

      const cdnRoute = (action: string) => `/api/config/nodes/${PLAY_AGENT}/proxy/cdn/${action}`;
      // The system resolver does not know the CDN host: the play-agent reads it only through an address its
      // preference chose. A probe makes the node resolve it (DoH) and measure the addresses now.
      const probed = await admin('POST', cdnRoute('probe'), { host: cdn.host });
      expect(probed.status, probed.text).toBe(200);
      const host = (probed.body.hosts as Json[]).find((entry) => entry.host === cdn!.host)!;
      expect(host.primaryIp, probed.text).toBe(FAST);

      const playFrom = async (ip: string, session: string) => {
        const before = cdn!.nodes.get(ip)!.downloads;
        const answer = await request(`${playAgent}/Videos/${itemId}/stream?static=true&api_key=${token}`);
        expect(answer.statusCode).toBe(200);
        expect(Buffer.from(await answer.body.arrayBuffer()).equals(film)).toBe(true);
        expect(cdn!.nodes.get(ip)!.downloads).toBeGreaterThan(before);
        await reportStartStop(playAgent, token, itemId, session);
      };
      const activity = (session: string) =>
        finishedSessionEvents({ userPort: env.SVC_USER_PORT, dataDir, userId: viewerId, session });

      await playFrom(FAST, 'drive-b-first');
      const first = await activity('drive-b-first');
      expect(first.map((event) => event.eventType).sort()).toEqual(['start', 'stop']);
      expect(compact(String(first[0]!.mediaId))).toBe(itemId);
      expect(first.reduce((sum, event) => sum + Number(event.bytesDelta), 0)).toBeGreaterThanOrEqual(
        film.length,
      );

      // Manual addresses: one preferred (not in DNS), one candidate. The preferred one becomes the primary.
      const manual = await admin('POST', cdnRoute('manual'), {
        host: cdn.host,
        preferredIps: [MANUAL],
        candidateIps: [MEDIUM],
      });
      expect(manual.status, manual.text).toBe(200);
      expect(manual.body).toMatchObject({ primaryIp: MANUAL, manualPreferredIps: [MANUAL] });

      // A real restart of the play-agent process (killed; the supervisor starts it again).
      const oldPid = playAgentPid(svc)!;
      expect(oldPid).toBeGreaterThan(0);
      process.kill(oldPid, 'SIGKILL');
      await waitFor(async () => {
        const pid = playAgentPid(svc);
        if (pid === null || pid === oldPid) return undefined;
        return (await call(playAgent, 'GET', '/health').catch(() => ({ status: 0 }))).status === 200
          ? true
          : undefined;
      }, 120_000);
      expect(existsSync(path.join(dataDir, 'play-agent', `cdn-manual-${PLAY_AGENT}.json`))).toBe(true);

      // The new process knows the manual addresses at once and makes the preferred one the primary again.
      const restored = await waitFor(async () => {
        const status = await admin('GET', cdnRoute('status'));
        const entry = ((status.body.hosts ?? []) as Json[]).find((item) => item.host === cdn!.host);
        return entry?.primaryIp === MANUAL ? entry : undefined;
      }, 60_000);
      expect(restored).toMatchObject({ manualPreferredIps: [MANUAL], manualCandidateIps: [MEDIUM] });

      await playFrom(MANUAL, 'drive-b-after-restart');
      expect((await activity('drive-b-after-restart')).length).toBeGreaterThanOrEqual(2);

      svc.child.kill('SIGINT');
      expect((await svc.exited).code).toBe(0);
    },
  );
});
