// `npm run bench -- drive-redirect`: time to first byte of a DRIVE_A play through the standalone program,
// proxied by the play-agent vs redirected (302) to the drive's link, cold (no link cached) and with the link
// cached, against the loopback DRIVE_A test server answering every request after a latency. The reference,
// measured in the same run, is a player fetching an already known link straight from the drive.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { startDriveAServer } from '../packages/server/test/support/drive-servers/drive-a-server.js';
import { mediaFixtures } from '../packages/server/test/support/media-fixtures.js';
import { portEnv, standaloneHealthUrls } from '../packages/server/test/support/ports.js';
import { isHealthy, json, waitUntil, type Json } from './support.js';

const BUNDLE = path.resolve('packages/server/dist/svc.mjs');
const TOKEN = 'bench-drive-a-token';
/** Each request to the drive (API call or link) waits this long: a drive across the internet. */
const LATENCY_MS = 40;
/** Films on the drive: one cold redirected play each (the link cache is keyed by item). */
const FILMS = 8;
const RANGE = 'bytes=0-65535';

interface Timed {
  ms: number;
  status: number;
  location?: string;
}

/** Milliseconds from sending the request to its first body byte (or to its answer, for a redirect). */
async function firstByte(url: string, headers: Record<string, string> = {}): Promise<Timed> {
  const start = performance.now();
  const answer = await request(url, { headers: { range: RANGE, ...headers }, headersTimeout: 60_000 });
  if (answer.statusCode === 302) {
    await answer.body.dump();
    return { ms: performance.now() - start, status: 302, location: String(answer.headers.location) };
  }
  for await (const chunk of answer.body) {
    if ((chunk as Buffer).length > 0) break;
  }
  const ms = performance.now() - start;
  answer.body.destroy();
  return { ms, status: answer.statusCode };
}

/** A redirected play as a player does it: the 302, then the drive's link until its first byte. */
async function redirectedPlay(url: string): Promise<number> {
  const start = performance.now();
  const hop = await firstByte(url);
  if (hop.status !== 302 || !hop.location) throw new Error(`expected a redirect, got ${hop.status}`);
  const bytes = await firstByte(hop.location);
  if (bytes.status !== 206) throw new Error(`the drive's link answered ${bytes.status}`);
  return performance.now() - start;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const worst = (values: number[]) => Math.max(...values);

async function startStandalone(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BUNDLE, 'standalone'], {
    env: { ...process.env, ...env, SVC_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const urls = standaloneHealthUrls(env as Parameters<typeof standaloneHealthUrls>[0]);
  await waitUntil(async () => (await Promise.all(urls.map(isHealthy))).every(Boolean), 300_000);
  return child;
}

export async function benchDriveRedirect(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-drive-'));
  const fixtures = await mediaFixtures();
  const video = readFileSync(path.join(fixtures.library, fixtures.spareVideo));
  const tree = Object.fromEntries(
    Array.from({ length: FILMS }, (_, index) => [
      `/Films/Bench Film ${index + 1} (${2001 + index})/Bench Film ${index + 1} (${2001 + index}).mkv`,
      video,
    ]),
  );
  const drive = await startDriveAServer(tree, { token: TOKEN });
  let svc: ChildProcess | undefined;
  try {
    const env = {
      ...(await portEnv()),
      SVC_DATA_DIR: path.join(work, 'data'),
      PLAY_AGENT_DRIVE_A_REDIRECT_ALLOWED_HOSTS: '127.0.0.1',
      SVC_PLAY_AGENT_POLICY_REFRESH_SECONDS: '1',
    };
    svc = await startStandalone(env);
    const entrance = `http://127.0.0.1:${env.SVC_FRONTEND_PORT}`;
    const playAgent = `http://${env.PLAY_AGENT_LISTEN}`;
    await json(entrance, 'POST', '/api/auth/setup/admin', { username: 'root', password: 'bench-password-1' });
    const login = await json(entrance, 'POST', '/api/auth/login', {
      username: 'root',
      password: 'bench-password-1',
      client: 'console',
    });
    const admin = { 'x-admin-token': String(login.adminToken) };
    await waitUntil(async () => {
      const mounts = await request(`${entrance}/api/storage/mounts`, { headers: admin });
      await mounts.body.dump();
      return mounts.statusCode === 200;
    }, 60_000);

    // The drive: an account, a mount of it, a library scanned through it (without latency, to be quick).
    const account = await json(
      entrance,
      'POST',
      '/api/storage/drive-accounts',
      { name: 'bench', kind: 'drive_a', config: { url: drive.url, token: TOKEN, allowPrivateNetwork: true } },
      admin,
    );
    const mount = await json(
      entrance,
      'POST',
      '/api/storage/mounts',
      { name: 'bench drive', provider: 'drive_a', config: { accountId: account.id, root: '/' } },
      admin,
    );
    const library = await json(
      entrance,
      'POST',
      '/api/media/libraries',
      {
        name: 'Bench',
        type: 'movies',
        sources: [{ nodeId: 'node-local-storage', mountId: mount.id, path: '/Films' }],
      },
      admin,
    );
    await waitUntil(async () => {
      const scan = (
        await json(entrance, 'GET', `/api/media/libraries/${String(library.id)}/scan`, undefined, admin)
      ).scan as Json | null;
      return scan?.state === 'succeeded';
    }, 300_000);

    const user = await json(
      entrance,
      'POST',
      '/api/auth/admin/users',
      { username: 'viewer', password: 'viewer-password-1', driveAPlayMode: 'proxy' },
      admin,
    );
    const signedIn = await json(
      playAgent,
      'POST',
      '/Users/AuthenticateByName',
      { Username: 'viewer', Pw: 'viewer-password-1' },
      { 'x-emby-authorization': 'Emby Client="bench", Device="bench", DeviceId="bench-drive", Version="1"' },
    );
    const token = String(signedIn.AccessToken);
    const listed = await json(
      playAgent,
      'GET',
      `/Users/${String((signedIn.User as Json).Id)}/Items?Recursive=true&IncludeItemTypes=Movie`,
      undefined,
      { 'x-emby-token': token },
    );
    const items = (listed.Items as Json[]).map((item) => String(item.Id));
    if (items.length !== FILMS) throw new Error(`the scan found ${items.length} of ${FILMS} films`);
    const streamUrl = (id: string) => `${playAgent}/Videos/${id}/stream?static=true&api_key=${token}`;
    await json(entrance, 'PUT', '/api/config/play-agent/policy', { driveARedirect: true }, admin);
    drive.latencyMs = LATENCY_MS;

    // Proxied: the user's mode is proxy; each play asks the drive for a link and reads through the node.
    for (const id of items.slice(0, 2)) await firstByte(streamUrl(id)); // warm-up
    const proxied: number[] = [];
    for (const id of items) {
      const timed = await firstByte(streamUrl(id));
      if (timed.status !== 206) throw new Error(`a proxied play answered ${timed.status}`);
      proxied.push(timed.ms);
    }

    // Redirected: the user's mode becomes redirect; the play-agent sees it once its policy of the user renews.
    await json(
      entrance,
      'PATCH',
      `/api/auth/admin/users/${String(user.id)}`,
      { driveAPlayMode: 'redirect' },
      admin,
    );
    const [warmItem, ...coldItems] = items;
    await waitUntil(async () => (await firstByte(streamUrl(warmItem!))).status === 302, 180_000);
    const cold: number[] = [];
    for (const id of coldItems) cold.push(await redirectedPlay(streamUrl(id)));
    const cached: number[] = [];
    for (const id of coldItems) cached.push(await redirectedPlay(streamUrl(id)));

    // Reference: a known link fetched straight from the drive.
    const link = (await firstByte(streamUrl(warmItem!))).location!;
    const direct: number[] = [];
    for (let run = 0; run < coldItems.length; run += 1) direct.push((await firstByte(link)).ms);

    const load = loadavg().map((value) => value.toFixed(1));
    const reference = median(direct);
    console.log(
      `drive-redirect bench: load average ${load.join(' ')} (2 cores); drive latency ${LATENCY_MS} ms per request; ` +
        `first bytes of a ${(video.length / 1024).toFixed(0)} KiB film (Range ${RANGE}); ${coldItems.length} plays per case`,
    );
    console.log('| case | median TTFB | worst | × reference |');
    console.log('|---|---|---|---|');
    const row = (label: string, values: number[]) =>
      console.log(
        `| ${label} | ${median(values).toFixed(0)} ms | ${worst(values).toFixed(0)} ms | ${(median(values) / reference).toFixed(2)} |`,
      );
    row('reference: known link fetched from the drive', direct);
    row('proxied through the play-agent', proxied);
    row('redirected (302), cold: link asked from the drive', cold);
    row('redirected (302), link cached', cached);
  } finally {
    if (svc && svc.exitCode === null) {
      svc.kill('SIGINT');
      await new Promise((resolve) => svc!.once('exit', resolve));
    }
    await drive.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
