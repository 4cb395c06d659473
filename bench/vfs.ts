// `npm run bench -- vfs`: the play-agent's video cache against rclone's VFS cache, all reading the same
// WebDAV origin through one throttled link modelled on a cloud drive (docs/vfs-cache.md, "Bench").
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { VFS_PRESET_VALUES } from '@svc/contracts';
import { linkIdle } from '../packages/server/test/vfs-e2e/cache-fixture.js';
import {
  MEDIA_FILES,
  startVfsOrigin,
  type MediaKind,
  type VfsOrigin,
} from '../packages/server/test/vfs-e2e/vfs-origin.js';
import { mib } from './support.js';
import { makeFilms, type FilmFacts } from './vfs-media.js';
import {
  measureMetric,
  median,
  METRICS,
  START_BUFFER_SECONDS,
  probeMs,
  startMs,
  seekMs,
  type Metric,
} from './vfs-measure.js';
import { traceFirstOpens } from './vfs-trace.js';
import { localReference, playAgentPlain, playAgentSmart, rcloneHttp, type Variant } from './vfs-variants.js';

const MiB = 1024 * 1024;
/**
 * Two cloud drives seen from a home or office line, each run in turn on the same origin. `near`: every
 * request pays 150 ms before its first byte (round trips, TLS to a nearby CDN) and all transfers share
 * 12 MiB/s (about 100 Mbit/s). `far`: 400 ms per request (a drive that resolves a download link for every
 * ranged read, or a CDN on another continent) and 6 MiB/s (about 50 Mbit/s). `VFS_BENCH_LINKS=near`
 * runs one of them.
 */
const LINKS = {
  near: { latencyMs: 150, bytesPerSecond: 12 * MiB },
  far: { latencyMs: 400, bytesPerSecond: 6 * MiB },
} as const;
type LinkName = keyof typeof LINKS;
// A film at about 13 Mbit/s (a 1080p Blu-ray encode's range): 150 s, about 235 MiB per file.
const FILM = { clipSeconds: 10, repeats: 15, videoBitrate: '12M' };
const SAMPLES = Math.max(1, Number(process.env.VFS_BENCH_SAMPLES ?? 5));
const KINDS = Object.keys(MEDIA_FILES) as MediaKind[];

type Figure = Metric | 'upstream' | 'disk';
/** Samples of one row: variant (and cold or warm) × file. */
type Row = Map<Figure, number[]>;

const loadText = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

class Results {
  private readonly rows = new Map<string, Row>();

  add(row: string, kind: MediaKind, figure: Figure, value: number): void {
    const key = `${row}|${kind}`;
    const samples = this.rows.get(key) ?? new Map<Figure, number[]>();
    samples.set(figure, [...(samples.get(figure) ?? []), value]);
    this.rows.set(key, samples);
  }

  get(row: string, kind: MediaKind, figure: Figure): number {
    const values = this.rows.get(`${row}|${kind}`)?.get(figure);
    return values && values.length > 0 ? median(values) : Number.NaN;
  }

  samples(row: string, kind: MediaKind, figure: Figure): number[] {
    return this.rows.get(`${row}|${kind}`)?.get(figure) ?? [];
  }

  names(): string[] {
    return [...new Set([...this.rows.keys()].map((key) => key.split('|')[0]!))];
  }
}

/** Each figure of a cold row on its own empty cache; then a first open, then the warm row on its cache. */
async function sampleVariant(
  origin: VfsOrigin,
  variant: Variant,
  kind: MediaKind,
  film: FilmFacts,
  results: Results,
): Promise<void> {
  const cold = variant.caches ? `${variant.name} cold` : variant.name;
  for (const metric of METRICS) {
    const endpoint = await variant.open();
    try {
      results.add(cold, kind, metric, await measureMetric(metric, endpoint.url(film.file), film.size));
    } finally {
      await endpoint.close();
    }
    await linkIdle(origin.proxy);
  }
  // The first open of a file: the probe, a player's start, a seek; and what the cache does after it.
  const endpoint = await variant.open();
  try {
    const url = endpoint.url(film.file);
    const before = origin.proxy.stats.getBytes;
    const firstRequest = origin.proxy.log.length;
    const phases: Array<[string, number]> = [['probe', firstRequest]];
    await probeMs(url);
    phases.push(['start', origin.proxy.log.length]);
    await startMs(url);
    phases.push(['seek', origin.proxy.log.length]);
    await seekMs(url, film.size);
    phases.push(['after', origin.proxy.log.length]);
    await endpoint.settle();
    const upstream = origin.proxy.stats.getBytes - before;
    const disk = await endpoint.diskBytes();
    results.add(cold, kind, 'upstream', upstream);
    results.add(cold, kind, 'disk', disk);
    if (variant.caches && upstream > 1.5 * disk) {
      // A first open that fetched far more than it kept: show where its bytes went.
      console.log(`  ${cold} ${kind}: ${mib(upstream)} over the link for ${mib(disk)} kept:`);
      origin.proxy.log.slice(firstRequest).forEach((request, offset) => {
        const phase = phases.filter(([, at]) => at <= firstRequest + offset).at(-1)![0];
        console.log(
          `    ${phase} ${request.method} ${request.range ?? '-'} ${mib(request.bytes)} at ${request.arrivedMs - origin.proxy.log[firstRequest]!.arrivedMs} ms`,
        );
      });
    }
    if (!variant.caches) return;
    const warm = `${variant.name} warm`;
    const warmBefore = origin.proxy.stats.getBytes;
    for (const metric of METRICS)
      results.add(warm, kind, metric, await measureMetric(metric, url, film.size));
    await endpoint.settle();
    results.add(warm, kind, 'upstream', origin.proxy.stats.getBytes - warmBefore);
    results.add(warm, kind, 'disk', await endpoint.diskBytes());
  } finally {
    await endpoint.close();
    await linkIdle(origin.proxy);
  }
}

const ms = (value: number) => `${value.toFixed(0)} ms`;
const ratio = (value: number) => `${value.toFixed(1)}×`;

function printTable(results: Results): void {
  console.log(
    `| variant | file | TTFB | ffprobe | start (${START_BUFFER_SECONDS} s) | seek to middle | first open: upstream | disk |`,
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const kind of KINDS) {
    for (const row of results.names()) {
      const get = (figure: Figure) => results.get(row, kind, figure);
      console.log(
        `| ${row} | ${kind} | ${ms(get('ttfb'))} | ${ms(get('probe'))} | ${ms(get('start'))} | ${ms(get('seek'))} | ${mib(get('upstream'))} | ${mib(get('disk'))} |`,
      );
    }
  }
}

/** Every sample of one figure where the medians hide a spread (the first open's upstream bytes). */
function printSamples(results: Results, figure: Figure): void {
  console.log(`${figure} per sample (first open, in sample order):`);
  for (const kind of KINDS) {
    for (const row of results.names()) {
      const values = results.samples(row, kind, figure);
      if (values.some((value) => value > 0)) {
        console.log(`  ${row} | ${kind}: ${values.map((value) => mib(value)).join(', ')}`);
      }
    }
  }
}

function printGoals(results: Results): void {
  const cap = VFS_PRESET_VALUES.BALANCED.perFileHardCapBytes;
  const ours = 'play-agent SMART_STARTUP';
  console.log('goals (medians):');
  for (const kind of KINDS) {
    const get = (row: string, figure: Figure) => results.get(row, kind, figure);
    const check = (ok: boolean, text: string) =>
      console.log(`  ${ok ? 'met   ' : 'MISSED'} ${kind}: ${text}`);
    const local = get('local file (reference)', 'ttfb');
    const warmTtfb = get(`${ours} warm`, 'ttfb');
    check(
      warmTtfb <= 2 * local,
      `warm TTFB ${ms(warmTtfb)} = ${ratio(warmTtfb / local)} local ${ms(local)} (≤ 2×)`,
    );
    const coldProbe = get(`${ours} cold`, 'probe');
    const warmProbe = get(`${ours} warm`, 'probe');
    check(
      coldProbe >= 5 * warmProbe,
      `warm ffprobe ${ms(warmProbe)}, cold ${ms(coldProbe)}: ${ratio(coldProbe / warmProbe)} faster (≥ 5×); local ${ms(get('local file (reference)', 'probe'))}`,
    );
    const disk = get(`${ours} cold`, 'disk');
    check(disk <= cap, `disk per file ${mib(disk)} within the BALANCED cap ${mib(cap)}`);
    const up = get(`${ours} cold`, 'upstream');
    const theirs = get('rclone --vfs-cache-mode full cold', 'upstream');
    check(
      up <= theirs,
      `first-open upstream ${mib(up)} = ${ratio(up / theirs)} rclone full's ${mib(theirs)} (≤ 1×)`,
    );
  }
}

function chosenLinks(): LinkName[] {
  const names = (process.env.VFS_BENCH_LINKS ?? 'near,far').split(',').map((name) => name.trim());
  for (const name of names) {
    if (!(name in LINKS)) throw new Error(`VFS_BENCH_LINKS: unknown link ${name} (near, far)`);
  }
  return names as LinkName[];
}

export async function benchVfs(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-vfs-'));
  const links = chosenLinks();
  const origin = await startVfsOrigin(LINKS[links[0]!]);
  const stops: Array<() => Promise<void>> = [];
  try {
    const films = await makeFilms(origin.davDir, FILM);
    if (process.env.VFS_BENCH_TRACE) {
      for (const name of links) {
        origin.proxy.set(LINKS[name]);
        console.log(`link ${name}:`);
        await traceFirstOpens(origin, films, work);
      }
      return;
    }
    const local = await localReference(origin);
    stops.push(() => local.stop());
    const plain = await playAgentPlain(origin, films);
    stops.push(() => plain.stop());
    const variants: Variant[] = [
      local,
      plain,
      playAgentSmart(origin, films, work),
      rcloneHttp(origin, 'full', work),
      rcloneHttp(origin, 'off', work),
    ];
    console.log(
      `vfs bench: ${SAMPLES} samples; files: ${KINDS.map((kind) => {
        const film = films.get(kind)!;
        return `${kind} ${mib(film.size)} ${film.durationSeconds.toFixed(0)} s ${(film.bitrate / 1e6).toFixed(1)} Mbit/s`;
      }).join(', ')}`,
    );
    for (const name of links) {
      const link = LINKS[name];
      origin.proxy.set(link);
      await linkIdle(origin.proxy);
      console.log(`\nlink ${name}: ${link.latencyMs} ms per request, ${mib(link.bytesPerSecond)}/s shared`);
      const results = new Results();
      for (let sample = 1; sample <= SAMPLES; sample++) {
        console.log(`sample ${sample}/${SAMPLES}: load average ${loadText()} (2 cores)`);
        for (const kind of KINDS) {
          for (const variant of variants)
            await sampleVariant(origin, variant, kind, films.get(kind)!, results);
        }
      }
      console.log(`load average after: ${loadText()}\n`);
      printTable(results);
      console.log('');
      printSamples(results, 'upstream');
      console.log('');
      printGoals(results);
    }
  } finally {
    for (const stop of stops) await stop();
    await origin.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
