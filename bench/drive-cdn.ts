// `npm run bench -- drive-cdn`: DRIVE_B stream throughput through the CDN address the preference picks
// against a slow address of the same CDN (docs/drives.md, "CDN address preference"), with the machine's load.
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import pino from 'pino';
import { driveBProviderConfigSchema } from '@svc/contracts';
import { cdnLinkSource } from '../packages/server/src/services/play-agent/cdn/cdn-link-source.js';
import { CdnPreference } from '../packages/server/src/services/play-agent/cdn/cdn-preference.js';
import { DohResolver } from '../packages/server/src/services/play-agent/cdn/doh-resolver.js';
import { resolvingAgent } from '../packages/server/src/services/play-agent/cdn/pinned-agent.js';
import { DriveB } from '../packages/server/src/services/storage/drives/drive-b.js';
import { startCdnServers } from '../packages/server/test/support/drive-servers/cdn-servers.js';
import { startDohServer } from '../packages/server/test/support/drive-servers/doh-server.js';
import { startDriveBServer } from '../packages/server/test/support/drive-servers/drive-b-server.js';
import { createTestCa } from '../packages/server/test/support/drive-servers/test-ca.js';
import { mib, seconds } from './support.js';

const MiB = 1024 * 1024;
const HOSTNAME = 'cdn.bench.test';
const TOKEN = 'bench-token';
const FILM = randomBytes(48 * MiB);
// Three edges of one CDN: a near fast one, a middling one, and a far slow one (about 32 Mbit/s).
const PROFILES = {
  '127.0.0.2': { latencyMs: 60, bytesPerSecond: 4 * MiB },
  '127.0.0.3': { latencyMs: 20, bytesPerSecond: 12 * MiB },
  '127.0.0.4': { latencyMs: 2, bytesPerSecond: 64 * MiB },
};
const SLOW = '127.0.0.2';
const ROUNDS = 3;

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

export async function benchDriveCdn(): Promise<void> {
  const ca = createTestCa([HOSTNAME]);
  const tree = { '/film.mkv': FILM };
  const drive = await startDriveBServer(tree, { token: TOKEN });
  const cdn = await startCdnServers({
    hostname: HOSTNAME,
    ca,
    tree,
    tokens: drive.tokens,
    profiles: PROFILES,
  });
  const doh = await startDohServer(ca, { [HOSTNAME]: Object.keys(PROFILES) });
  const driveB = new DriveB(
    driveBProviderConfigSchema.parse({
      url: drive.url,
      cdnHost: cdn.host,
      accessToken: TOKEN,
      allowPrivateNetwork: true,
    }),
  );
  const resolverAgent = resolvingAgent({ ca: ca.caPem });
  const preference = new CdnPreference({
    nodeId: 'node-bench-cdn',
    resolver: new DohResolver({ resolvers: [doh.url], dispatcher: resolverAgent, allowPrivate: true }),
    logger: pino({ level: 'silent' }),
    ca: ca.caPem,
  });
  const link = async () => {
    const answer = await driveB.directLink('film.mkv', {});
    return { url: answer.url, headers: answer.headers };
  };

  /** Bytes per second of one whole-file stream through the preference's current address. */
  const stream = async (): Promise<number> => {
    const source = cdnLinkSource({ facts: { size: FILM.length, mtime: null }, link, preference });
    const started = performance.now();
    const body = await source.open({ start: 0, end: FILM.length - 1 }, new AbortController().signal);
    let bytes = 0;
    for (let chunk = await body.read(); chunk; chunk = await body.read()) bytes += chunk.length;
    await source.close();
    if (bytes !== FILM.length) throw new Error(`read ${bytes} of ${FILM.length} bytes`);
    return bytes / ((performance.now() - started) / 1000);
  };
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

  try {
    console.log(`load average before: ${load()}`);
    preference.learn({ ...(await link()), refetch: link });
    const probeStarted = performance.now();
    const status = await preference.probe(cdn.host);
    const probeMs = performance.now() - probeStarted;
    const host = status.hosts[0]!;
    console.log(
      `optimization (DoH + ${host.lastMeasurements.length} addresses measured): ${seconds(probeMs)}`,
    );
    for (const m of host.lastMeasurements) {
      console.log(
        `  ${m.ip}: latency ${m.latencyMs} ms, throughput ${mib(m.throughputBytesPerSecond ?? 0)}/s${m.ok ? '' : ` (${m.error})`}`,
      );
    }
    console.log(`chosen primary: ${host.primaryIp}`);

    const best: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) best.push(await stream());
    await preference.setManual({ host: cdn.host, preferredIps: [SLOW], candidateIps: [] });
    const slow: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) slow.push(await stream());

    const bestRate = median(best);
    const slowRate = median(slow);
    console.log(`stream of ${mib(FILM.length)}, median of ${ROUNDS}:`);
    console.log(`  reference, slow address ${SLOW}: ${mib(slowRate)}/s`);
    console.log(
      `  chosen address ${host.primaryIp}: ${mib(bestRate)}/s  (${(bestRate / slowRate).toFixed(2)}× the reference)`,
    );
    console.log(`load average after: ${load()}`);
  } finally {
    await preference.close();
    await Promise.allSettled([cdn.stop(), doh.stop(), drive.stop(), driveB.close(), resolverAgent.close()]);
    ca.remove();
  }
}
