// `npm run bench -- artwork`: artwork answers per second through the play-agent's image cache, cold (each
// resized variant made by the media service and stored) and warm (from the cache, also revalidated with
// If-None-Match), against nginx serving the same image files in the same run (docs/image-cache.md, "Bench").
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { request } from 'undici';
import { portEnv, standaloneHealthUrls } from '../packages/server/test/support/ports.js';
import { artworkLoad, type ArtworkRequest, type LoadFigures } from './artwork-load.js';
import { startNginx, stop } from './nginx.js';
import { isHealthy, json, scannedBenchLibrary, waitUntil, type Json } from './support.js';

const BUNDLE = path.resolve('packages/server/dist/svc.mjs');
const MOVIES = 30;
/** The sizes players ask for: poster grid, poster detail, backdrop. */
const POSTER_WIDTHS = [200, 300, 400, 600];
const BACKDROP_WIDTHS = [960, 1280];
const CLIENTS = 8;
const WINDOW_MS = 8_000;
const ROUNDS = 2;

const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

/** A poster-like JPEG: a gradient with grain, so it compresses like a photograph rather than a flat fill. */
async function artworkJpeg(file: string, width: number, height: number, seed: number): Promise<void> {
  const pixels = Buffer.alloc(width * height * 3);
  let noise = seed * 2654435761;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      noise = (noise * 1103515245 + 12345) >>> 0;
      const grain = (noise >>> 24) % 24;
      const at = (y * width + x) * 3;
      pixels[at] = ((x * 255) / width + seed * 37 + grain) & 255;
      pixels[at + 1] = ((y * 255) / height + grain) & 255;
      pixels[at + 2] = (((x + y) * 128) / (width + height) + seed * 11 + grain) & 255;
    }
  }
  await sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 88 })
    .toFile(file);
}

async function makeLibrary(library: string): Promise<void> {
  for (let index = 1; index <= MOVIES; index += 1) {
    const title = `Bench Movie ${String(index).padStart(2, '0')} (2001)`;
    const folder = path.join(library, title);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, `${title}.mkv`), Buffer.alloc(64 * 1024, index));
    await artworkJpeg(path.join(folder, 'poster.jpg'), 1000, 1500, index);
    await artworkJpeg(path.join(folder, 'fanart.jpg'), 1920, 1080, index + 100);
  }
}

interface Install {
  entrance: string;
  playAgent: string;
  imageCacheDir: string;
  /** How it runs, for the output. */
  how: string;
}

/**
 * The standalone program (`svc standalone`, as users run it), or with BENCH_IN_PROCESS=1 the same
 * components in this process (for a machine so loaded that the program's 120 s start limit runs out).
 * `cleanups` takes the stop at once, so a start that fails is stopped too.
 */
async function startInstall(dataDir: string, cleanups: (() => Promise<void>)[]): Promise<Install> {
  if (process.env.BENCH_IN_PROCESS === '1') {
    const { startTestInstall } = await import('../packages/server/test/support/runtime.js');
    const { loadRole } = await import('../packages/server/src/runtime/roles.js');
    const roles = [...(await loadRole('standalone-control')), ...(await loadRole('storage'))];
    const install = await startTestInstall([...roles, ...(await loadRole('play-agent'))], {
      SVC_DB_MODE: 'bundled',
      SVC_LOG_LEVEL: 'warn',
    });
    cleanups.push(() => install.stop());
    const settings = install.context.settings;
    return {
      entrance: install.url('frontend'),
      playAgent: `http://127.0.0.1:${settings.playAgent.listenPort}`,
      imageCacheDir: settings.playAgent.imageCacheDir,
      how: 'components in the bench process',
    };
  }
  const env = { ...(await portEnv()), SVC_DATA_DIR: dataDir };
  const child = spawn(process.execPath, [BUNDLE, 'standalone'], {
    env: { ...process.env, ...env, SVC_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  cleanups.push(() => stop(child, 'SIGINT'));
  const urls = standaloneHealthUrls(env);
  await waitUntil(async () => (await Promise.all(urls.map(isHealthy))).every(Boolean), 600_000);
  return {
    entrance: `http://127.0.0.1:${env.SVC_FRONTEND_PORT}`,
    playAgent: `http://${env.PLAY_AGENT_LISTEN}`,
    imageCacheDir: path.join(dataDir, 'play-agent', 'image-cache'),
    how: 'svc standalone',
  };
}

/** An administrator, the scanned library, and the movies' protocol ids as a player sees them. */
async function movieIds(entrance: string, playAgent: string, library: string): Promise<string[]> {
  const password = 'bench-password-1';
  await json(entrance, 'POST', '/api/auth/setup/admin', { username: 'root', password });
  const login = await json(entrance, 'POST', '/api/auth/login', {
    username: 'root',
    password,
    client: 'console',
  });
  await scannedBenchLibrary(entrance, library, { 'x-admin-token': String(login.adminToken) });
  const signedIn = await json(
    playAgent,
    'POST',
    '/Users/AuthenticateByName',
    { Username: 'root', Pw: password },
    { 'x-emby-authorization': 'Emby Client="bench", Device="bench", DeviceId="bench", Version="1"' },
  );
  const token = String(signedIn.AccessToken);
  const userId = String((signedIn.User as Json).Id);
  const items = await json(
    playAgent,
    'GET',
    `/Users/${userId}/Items?Recursive=true&IncludeItemTypes=Movie`,
    undefined,
    { 'x-emby-token': token },
  );
  const ids = (items.Items as Json[]).map((item) => String(item.Id));
  if (ids.length !== MOVIES) throw new Error(`the scan found ${ids.length} of ${MOVIES} movies`);
  return ids;
}

/** The artwork paths of one round: every movie's poster and backdrop at the players' sizes. */
function artworkPaths(ids: string[]): string[] {
  return ids.flatMap((id) => [
    ...POSTER_WIDTHS.map((width) => `/Items/${id}/Images/Primary?tag=bench&maxWidth=${width}&quality=90`),
    ...BACKDROP_WIDTHS.map((width) => `/Items/${id}/Images/Backdrop?tag=bench&maxWidth=${width}&quality=90`),
  ]);
}

interface Fetched {
  body: Buffer;
  etag: string;
  cache: string;
}

async function fetchOnce(url: string): Promise<Fetched> {
  const answer = await request(url);
  const body = Buffer.from(await answer.body.arrayBuffer());
  if (answer.statusCode !== 200) throw new Error(`${url} answered ${answer.statusCode}`);
  return { body, etag: String(answer.headers.etag), cache: String(answer.headers['x-svc-image-cache']) };
}

const row = (name: string, figures: LoadFigures, ratio: string) =>
  `| ${name} | ${figures.rps.toFixed(0)} | ${figures.p50Ms.toFixed(1)} | ${figures.p99Ms.toFixed(1)} | ${(figures.bytesPerAnswer / 1024).toFixed(1)} KiB | ${ratio} |`;

export async function benchArtwork(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-artwork-'));
  const library = path.join(work, 'library');
  const served = path.join(work, 'served');
  const cleanups: (() => Promise<void>)[] = [];
  const listFile = path.join(work, 'requests.json');
  try {
    chmodSync(work, 0o755);
    mkdirSync(served, { recursive: true });
    await makeLibrary(library);
    const install = await startInstall(path.join(work, 'data'), cleanups);
    const { playAgent, imageCacheDir } = install;
    const ids = await movieIds(install.entrance, playAgent, library);
    const paths = artworkPaths(ids);
    console.log(
      `artwork bench (${install.how}): load average ${load()} (2 cores); ${MOVIES} movies, poster 1000x1500 and backdrop 1920x1080 JPEG; ${paths.length} variants; ${CLIENTS} concurrent clients`,
    );

    // Cold: the cache is empty, each variant is asked once and made by the media service.
    const cold = await artworkLoad(
      playAgent,
      paths.map((route) => ({ path: route, status: 200 })),
      { clients: CLIENTS, mode: 'once', listFile },
    );
    // Every variant is now a hit; keep its bytes for nginx and its ETag for revalidation.
    const fetched: Fetched[] = [];
    for (const route of paths) fetched.push(await fetchOnce(`${playAgent}${route}`));
    const misses = fetched.filter((answer) => answer.cache !== 'hit').length;
    if (misses > 0)
      throw new Error(`${misses} variants were not served from the image cache after the cold round`);
    fetched.forEach((answer, index) => writeFileSync(path.join(served, `v${index}.jpg`), answer.body));

    const nginx = await startNginx(served, work);
    cleanups.push(() => stop(nginx.child, 'SIGQUIT'));
    const nginxEtags: string[] = [];
    for (let index = 0; index < paths.length; index += 1) {
      nginxEtags.push((await fetchOnce(`${nginx.url}/v${index}.jpg`)).etag);
    }

    const warmList: ArtworkRequest[] = paths.map((route) => ({ path: route, status: 200 }));
    const warm304List: ArtworkRequest[] = paths.map((route, index) => ({
      path: route,
      headers: { 'if-none-match': fetched[index]!.etag },
      status: 304,
    }));
    const nginxList: ArtworkRequest[] = paths.map((_route, index) => ({
      path: `/v${index}.jpg`,
      status: 200,
    }));
    const nginx304List: ArtworkRequest[] = paths.map((_route, index) => ({
      path: `/v${index}.jpg`,
      headers: { 'if-none-match': nginxEtags[index]! },
      status: 304,
    }));
    const loop = { clients: CLIENTS, mode: 'loop' as const, durationMs: WINDOW_MS, listFile };
    const best = (runs: LoadFigures[]) => runs.reduce((a, b) => (b.rps > a.rps ? b : a));
    const runs = { warm: [] as LoadFigures[], warm304: [], nginx: [], nginx304: [], floor: [] } as Record<
      'warm' | 'warm304' | 'nginx' | 'nginx304' | 'floor',
      LoadFigures[]
    >;
    // The play-agent's HTTP floor: its cheapest anonymous route, through the same hooks as the artwork.
    const floorList: ArtworkRequest[] = [{ path: '/System/Ping', status: 200 }];
    // Alternating rounds, best of each: the shared machine's load hits either side at random.
    for (let round = 0; round < ROUNDS; round += 1) {
      runs.nginx.push(await artworkLoad(nginx.url, nginxList, loop));
      runs.warm.push(await artworkLoad(playAgent, warmList, loop));
      runs.nginx304.push(await artworkLoad(nginx.url, nginx304List, loop));
      runs.warm304.push(await artworkLoad(playAgent, warm304List, loop));
      runs.floor.push(await artworkLoad(playAgent, floorList, loop));
    }
    const warm = best(runs.warm);
    const warm304 = best(runs.warm304);
    const viaNginx = best(runs.nginx);
    const viaNginx304 = best(runs.nginx304);
    const floor = best(runs.floor);
    const cached = readdirSync(imageCacheDir).length;

    const ratio = (value: number, reference: number) => `${(value / reference).toFixed(2)}x`;
    console.log(`\n| round | answers/s | p50 ms | p99 ms | body per answer | vs nginx |`);
    console.log('|---|---|---|---|---|---|');
    console.log(row('nginx, the same files (reference)', viaNginx, '1.00x'));
    console.log(row('nginx, If-None-Match → 304 (reference)', viaNginx304, '1.00x'));
    console.log(row('play-agent cold (miss, resized, stored)', cold, ratio(cold.rps, viaNginx.rps)));
    console.log(row('play-agent warm (hit)', warm, ratio(warm.rps, viaNginx.rps)));
    console.log(row('play-agent warm, If-None-Match → 304', warm304, ratio(warm304.rps, viaNginx304.rps)));
    console.log(
      row('play-agent GET /System/Ping (its HTTP floor)', floor, ratio(floor.rps, viaNginx304.rps)),
    );
    console.log(
      `\nwarm / cold: ${ratio(warm.rps, cold.rps)}; warm 304 / ping floor: ${ratio(warm304.rps, floor.rps)}; best of ${ROUNDS} alternating ${WINDOW_MS / 1000} s rounds (all: warm ${runs.warm.map((r) => r.rps.toFixed(0)).join(', ')}; nginx ${runs.nginx.map((r) => r.rps.toFixed(0)).join(', ')}; warm 304 ${runs.warm304.map((r) => r.rps.toFixed(0)).join(', ')}; nginx 304 ${runs.nginx304.map((r) => r.rps.toFixed(0)).join(', ')}; ping ${runs.floor.map((r) => r.rps.toFixed(0)).join(', ')})`,
    );
    console.log(`image cache: ${cached} shard folders`);
    console.log(`load average after: ${load()}`);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
    spawnSync('sync');
    rmSync(work, { recursive: true, force: true });
  }
}
