import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { driveBProviderConfigSchema } from '@svc/contracts';
import { CdnPreference } from '../../src/services/play-agent/cdn/cdn-preference.js';
import { cdnLinkSource } from '../../src/services/play-agent/cdn/cdn-link-source.js';
import { DohResolver } from '../../src/services/play-agent/cdn/doh-resolver.js';
import { resolvingAgent } from '../../src/services/play-agent/cdn/pinned-agent.js';
import type { SampleLink } from '../../src/services/play-agent/cdn/ip-measure.js';
import type { MediaBody, MediaSource } from '../../src/services/play-agent/stream/sources.js';
import { DriveB } from '../../src/services/storage/drives/drive-b.js';
import { startCdnServers, type CdnServers } from '../support/drive-servers/cdn-servers.js';
import { startDohServer, type DohServer } from '../support/drive-servers/doh-server.js';
import { startDriveBServer, type DriveBServer } from '../support/drive-servers/drive-b-server.js';
import { createTestCa, type TestCa } from '../support/drive-servers/test-ca.js';

const HOSTNAME = 'cdn.drive-b.test';
const TOKEN = 'drive-b-access-token';
const KiB = 1024;
const MiB = 1024 * KiB;
const FILM = randomBytes(6 * MiB);
const SLOW = '127.0.0.2';
const FAST = '127.0.0.3';
const MEDIUM = '127.0.0.4';
const EXTRA = '127.0.0.5';
const DOOMED = '127.0.0.6';

async function readAll(body: MediaBody): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (let chunk = await body.read(); chunk; chunk = await body.read()) {
    chunks.push(Buffer.from(chunk));
    body.release(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The DRIVE_B CDN address preference against a DRIVE_B API server, CDN addresses 127.0.0.2–5 over HTTPS
 * (certificate of the CDN host name from a test CA) each with its own latency and throughput, and a DoH
 * resolver: the best address is chosen, a running read survives a switch, a dead address leaves the pool,
 * a refused link is asked for again once, manual addresses are honoured.
 */
describe('DRIVE_B CDN preference', () => {
  let ca: TestCa;
  let drive: DriveBServer;
  let cdn: CdnServers;
  let doh: DohServer;
  let driveB: DriveB;
  let preference: CdnPreference;
  let resolverAgent: ReturnType<typeof resolvingAgent>;
  const linkCalls = { plain: 0, fresh: 0 };

  const link = async (fresh: boolean): Promise<SampleLink> => {
    if (fresh) linkCalls.fresh += 1;
    else linkCalls.plain += 1;
    const answer = await driveB.directLink('Films/film.mkv', {});
    return { url: answer.url, headers: answer.headers };
  };
  const source = (): MediaSource =>
    cdnLinkSource({ facts: { size: FILM.length, mtime: null }, link, preference });

  beforeAll(async () => {
    ca = createTestCa([HOSTNAME]);
    const tree = { '/Films/film.mkv': FILM };
    drive = await startDriveBServer(tree, { token: TOKEN });
    cdn = await startCdnServers({
      hostname: HOSTNAME,
      ca,
      tree,
      tokens: drive.tokens,
      profiles: {
        [SLOW]: { latencyMs: 5, bytesPerSecond: 512 * KiB },
        [FAST]: { latencyMs: 5, bytesPerSecond: 16 * MiB },
        [MEDIUM]: { latencyMs: 5, bytesPerSecond: 2 * MiB },
        [EXTRA]: { latencyMs: 5, bytesPerSecond: 4 * MiB },
        [DOOMED]: { latencyMs: 5, bytesPerSecond: 8 * MiB },
      },
    });
    doh = await startDohServer(ca, { [HOSTNAME]: [SLOW, FAST, MEDIUM] });
    driveB = new DriveB(
      driveBProviderConfigSchema.parse({
        url: drive.url,
        cdnHost: cdn.host,
        accessToken: TOKEN,
        allowPrivateNetwork: true,
      }),
    );
    resolverAgent = resolvingAgent({ ca: ca.caPem });
  }, 120_000);

  afterEach(async () => {
    await preference?.close();
  });

  afterAll(async () => {
    await Promise.allSettled([
      cdn?.stop(),
      doh?.stop(),
      drive?.stop(),
      driveB?.close(),
      resolverAgent?.close(),
    ]);
    ca?.remove();
  });

  const newPreference = () =>
    new CdnPreference({
      nodeId: 'node-play-test',
      resolver: new DohResolver({ resolvers: [doh.url], dispatcher: resolverAgent, allowPrivate: true }),
      logger: pino({ level: 'silent' }),
      ca: ca.caPem,
      sampleBytes: 512 * KiB,
      measureMaxMs: 20_000,
    });

  it('resolves the host over DoH, measures every address and makes the fastest the primary', async () => {
    preference = newPreference();
    const queriesBefore = doh.queries;
    // Before any play the host is unknown: a probe naming it measures latency only.
    const latencyOnly = await preference.probe(cdn.host);
    expect(doh.queries).toBeGreaterThan(queriesBefore);
    const first = latencyOnly.hosts[0]!;
    expect(first.host).toBe(cdn.host);
    expect(first.sampleKnown).toBe(false);
    expect(first.lastMeasurements.map((m) => m.ip).sort()).toEqual([SLOW, FAST, MEDIUM].sort());
    expect(first.lastMeasurements.every((m) => m.ok && m.throughputBytesPerSecond === null)).toBe(true);

    // A play teaches it a link: the next probe reads real bytes through each address.
    preference.learn({ ...(await link(false)), refetch: () => link(true) });
    const status = await preference.probe(undefined);
    const host = status.hosts[0]!;
    expect(host.sampleKnown).toBe(true);
    expect(host.primaryIp).toBe(FAST);
    expect(host.preferredPool.map((m) => m.ip)).toEqual([FAST, MEDIUM, SLOW]);
    const rate = (ip: string) => host.preferredPool.find((m) => m.ip === ip)!.throughputBytesPerSecond!;
    expect(rate(FAST)).toBeGreaterThan(rate(MEDIUM));
    expect(rate(MEDIUM)).toBeGreaterThan(rate(SLOW));

    // Reads now go to the primary address, and TLS accepted the certificate of the host name there.
    const before = cdn.nodes.get(FAST)!.downloads;
    const file = source();
    const body = await file.open({ start: 0, end: FILM.length - 1 }, new AbortController().signal);
    expect((await readAll(body)).equals(FILM)).toBe(true);
    await file.close();
    expect(cdn.nodes.get(FAST)!.downloads).toBe(before + 1);
  }, 180_000);

  it('keeps a running read on its address while new reads go to the new primary', async () => {
    preference = newPreference();
    preference.learn({ ...(await link(false)), refetch: () => link(true) });
    await preference.setManual({ host: cdn.host, preferredIps: [MEDIUM], candidateIps: [] });
    expect(preference.status().hosts[0]!.primaryIp).toBe(MEDIUM);

    // A 6 MiB read at 2 MiB/s takes about 3 s: the switch happens while it runs.
    const running = source();
    const controller = new AbortController();
    const body = await running.open({ start: 0, end: FILM.length - 1 }, controller.signal);
    const firstChunk = await body.read();
    expect(firstChunk).not.toBeNull();
    const head = Buffer.from(firstChunk!);
    body.release(firstChunk!);

    const switched = await preference.setManual({ host: cdn.host, preferredIps: [FAST], candidateIps: [] });
    expect(switched.primaryIp).toBe(FAST);
    expect(switched.switches).toBeGreaterThanOrEqual(2);

    const fastBefore = cdn.nodes.get(FAST)!.downloads;
    const next = source();
    const nextBody = await next.open({ start: 0, end: MiB - 1 }, new AbortController().signal);
    expect((await readAll(nextBody)).equals(FILM.subarray(0, MiB))).toBe(true);
    expect(cdn.nodes.get(FAST)!.downloads).toBe(fastBefore + 1);

    const rest = await readAll(body);
    expect(Buffer.concat([head, rest]).equals(FILM)).toBe(true);
    await Promise.all([running.close(), next.close()]);
  }, 180_000);

  it('drops a dead address from the pool, at the next optimization and at once when a read finds it dead', async () => {
    preference = newPreference();
    preference.learn({ ...(await link(false)), refetch: () => link(true) });
    doh.records.set(HOSTNAME, [SLOW, MEDIUM, DOOMED]);
    try {
      let host = (await preference.probe(cdn.host)).hosts[0]!;
      expect(host.primaryIp).toBe(DOOMED);
      expect(host.preferredPool.map((m) => m.ip)).toEqual([DOOMED, MEDIUM, SLOW]);

      // The primary dies: the next read reports it, the next address takes over and the read succeeds.
      await cdn.nodes.get(DOOMED)!.kill();
      const file = source();
      const body = await file.open({ start: 0, end: 64 * KiB - 1 }, new AbortController().signal);
      expect((await readAll(body)).equals(FILM.subarray(0, 64 * KiB))).toBe(true);
      await file.close();
      host = preference.status().hosts[0]!;
      expect(host.primaryIp).toBe(MEDIUM);
      expect(host.preferredPool.map((m) => m.ip)).not.toContain(DOOMED);

      // DNS still names it: the optimization measures it, finds it dead and keeps it out.
      host = (await preference.probe(cdn.host)).hosts[0]!;
      const dead = host.lastMeasurements.find((m) => m.ip === DOOMED)!;
      expect(dead.ok).toBe(false);
      expect(dead.error).toBeTruthy();
      expect(host.preferredPool.map((m) => m.ip)).toEqual([MEDIUM, SLOW]);
      expect(host.primaryIp).toBe(MEDIUM);
    } finally {
      doh.records.set(HOSTNAME, [SLOW, FAST, MEDIUM]);
    }
  }, 180_000);

  it('asks for a refused link again once, and fails after the second refusal', async () => {
    preference = newPreference();
    preference.learn({ ...(await link(false)), refetch: () => link(true) });
    await preference.setManual({ host: cdn.host, preferredIps: [FAST], candidateIps: [] });
    const fast = cdn.nodes.get(FAST)!;

    const freshBefore = linkCalls.fresh;
    const downloadsBefore = fast.downloads;
    fast.refuseNext = 1;
    const file = source();
    const body = await file.open({ start: 0, end: 128 * KiB - 1 }, new AbortController().signal);
    expect((await readAll(body)).equals(FILM.subarray(0, 128 * KiB))).toBe(true);
    expect(linkCalls.fresh).toBe(freshBefore + 1);
    expect(fast.downloads).toBe(downloadsBefore + 2);

    fast.refuseNext = 5;
    const refused = source();
    await expect(refused.open({ start: 0, end: 1023 }, new AbortController().signal)).rejects.toMatchObject({
      status: 502,
    });
    expect(linkCalls.fresh).toBe(freshBefore + 2);
    expect(fast.downloads).toBe(downloadsBefore + 4);
    fast.refuseNext = 0;
    await Promise.all([file.close(), refused.close()]);
  }, 120_000);

  it('honours manual preferred and candidate addresses', async () => {
    preference = newPreference();
    preference.learn({ ...(await link(false)), refetch: () => link(true) });
    // EXTRA is not in DNS: as a manual candidate it is measured and competes; SLOW is preferred by hand.
    const host = await preference.setManual({ host: cdn.host, preferredIps: [SLOW], candidateIps: [EXTRA] });
    expect(host.manualPreferredIps).toEqual([SLOW]);
    expect(host.manualCandidateIps).toEqual([EXTRA]);
    expect(host.primaryIp).toBe(SLOW);
    expect(host.preferredPool[0]!.ip).toBe(SLOW);
    expect(host.lastMeasurements.find((m) => m.ip === EXTRA)?.source).toBe('manual');
    expect(host.preferredPool.map((m) => m.ip)).toContain(EXTRA);
    expect(host.preferredPool.length).toBeLessThanOrEqual(5);

    const measured = await preference.measure(MEDIUM, undefined);
    expect(measured).toMatchObject({ ip: MEDIUM, ok: true, source: 'dns' });
    expect(measured.throughputBytesPerSecond).toBeGreaterThan(0);

    // Clearing the lists returns to the measured best.
    const cleared = await preference.setManual({ host: cdn.host, preferredIps: [], candidateIps: [] });
    expect(cleared.primaryIp).toBe(FAST);
  }, 180_000);
});
