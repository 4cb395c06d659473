// REPORT_BENCH_CACHE=<folder>: keeps the generated activity log of `npm run bench -- report` so that later runs
// skip the generation (about 10 minutes per backend). Each run works on a copy, so the cache stays as generated:
// PostgreSQL copies a template database, the embedded database copies its data folder.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { userMigrations } from '../packages/server/src/services/user/migrations/index.js';

export interface CachedReportData {
  generateSeconds: number;
  /** When the generated log ends (ISO time). */
  end: string;
}

interface Place {
  dataDir: string;
  /** The user service's database of this run (PostgreSQL). */
  databaseName: string;
}

export interface ReportDataCache {
  /** Copies the cached data into this run's place; null when nothing is cached yet. */
  restore(place: Place): Promise<CachedReportData | null>;
  /** Keeps this run's freshly generated data (call before the install starts using it). */
  save(place: Place & CachedReportData): Promise<void>;
}

async function withServer<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export function reportDataCache(
  backend: 'postgres' | 'pglite',
  sessions: number,
  databaseUrl: string,
): ReportDataCache | null {
  const root = process.env.REPORT_BENCH_CACHE;
  if (!root) return null;
  // Generated data belongs to one schema: a new migration (a new rollup to fill) means a new generation.
  const schema = userMigrations.at(-1)!.name.slice(0, 4).toLowerCase();
  const folder = path.resolve(root, `${backend}-${sessions}-${schema}`);
  const marker = path.join(folder, 'generated.json');
  const template = `svc_bench_report_cache_${sessions}_${schema}`;
  return {
    async restore(place) {
      if (!existsSync(marker)) return null;
      const cached = JSON.parse(readFileSync(marker, 'utf8')) as CachedReportData;
      if (backend === 'postgres') {
        await withServer(databaseUrl, (client) =>
          client.query(`CREATE DATABASE "${place.databaseName}" TEMPLATE "${template}"`),
        );
      } else {
        cpSync(path.join(folder, 'data'), place.dataDir, { recursive: true });
      }
      return cached;
    },
    async save(place) {
      rmSync(folder, { recursive: true, force: true });
      mkdirSync(folder, { recursive: true });
      if (backend === 'postgres') {
        await withServer(databaseUrl, async (client) => {
          await client.query(`DROP DATABASE IF EXISTS "${template}"`);
          await client.query(`CREATE DATABASE "${template}" TEMPLATE "${place.databaseName}"`);
        });
      } else {
        cpSync(place.dataDir, path.join(folder, 'data'), { recursive: true });
      }
      const cached: CachedReportData = { generateSeconds: place.generateSeconds, end: place.end };
      writeFileSync(marker, JSON.stringify(cached));
    },
  };
}
