import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openServiceDatabase, runMigrations, type Migration } from '../../../src/platform/db/index.js';
import { initCluster } from '../../../src/platform/db/pglite-cluster.js';
import { installedPglite, runInitdbChild } from '../../../src/platform/db/pglite-initdb.js';
import {
  buildTemplate,
  builtTemplateDir,
  checkTemplate,
  packTemplate,
  unpackTemplate,
  type TemplateManifest,
} from '../../../src/platform/db/pglite-template.js';

/*
 * The build's template cluster (docs/database.md, "First start"): made once by initdb, copied on a first start,
 * and never used when it does not fit the running PGlite or is damaged (then initdb runs as before).
 */

let root: string;
/** A template made by buildTemplate, as the build makes it; copied by tests that change it. */
let template: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'svc-db-template-'));
  template = path.join(root, 'template');
  expect(await buildTemplate(template)).toBe('built');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let counter = 0;
async function freshDir(): Promise<string> {
  const dir = path.join(root, `d${++counter}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

function recordingLogger() {
  const records: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => records.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, records };
}

function manifestOf(dir: string): TemplateManifest {
  return JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as TemplateManifest;
}

/** Relative paths of every file and folder under dir, with each file's contents. */
function treeOf(dir: string, relative = ''): Map<string, Buffer | 'folder'> {
  const tree = new Map<string, Buffer | 'folder'>();
  for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
    const child = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      tree.set(child, 'folder');
      for (const [key, value] of treeOf(dir, child)) tree.set(key, value);
    } else {
      tree.set(child, readFileSync(path.join(dir, child)));
    }
  }
  return tree;
}

const migrations: Migration[] = [
  {
    name: 'V001__notes',
    up: async (db) => {
      await sql`CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)`.execute(db);
    },
  },
];

/** Opens the cluster folder named svc_user under dataDir, migrates it and writes and reads a row. */
async function expectWorkingCluster(dataDir: string): Promise<void> {
  const database = await openServiceDatabase({
    name: 'svc_user',
    mode: 'bundled',
    dataDir,
    logger: pino({ level: 'silent' }),
  });
  try {
    expect(await runMigrations(database, migrations)).toEqual({ applied: ['V001__notes'] });
    await sql`INSERT INTO notes (body) VALUES ('kept')`.execute(database.db);
    const { rows } = await sql<{ body: string }>`SELECT body FROM notes`.execute(database.db);
    expect(rows).toEqual([{ body: 'kept' }]);
  } finally {
    await database.close();
  }
}

function createdRecord(records: Record<string, unknown>[]) {
  return records.find((record) => record.msg === 'embedded database created');
}

describe('database template', () => {
  it('holds initdb output that unpacks byte for byte, with private modes', async () => {
    const work = await freshDir();
    const cluster = path.join(work, 'cluster');
    const pglite = installedPglite()!;
    await runInitdbChild(pglite.entry, cluster);
    const packed = path.join(work, 'packed');
    await packTemplate(cluster, packed, pglite.identity);
    const check = checkTemplate(packed, pglite.identity);
    expect(check.usable).toBe(true);
    if (!check.usable) return;

    const copy = path.join(work, 'copy');
    await unpackTemplate(packed, check.manifest, copy);
    const original = treeOf(cluster);
    const copied = treeOf(copy);
    expect([...copied.keys()].sort()).toEqual([...original.keys()].sort());
    // Buffer.equals: toEqual walks a 16 MB buffer index by index
    const differing = [...original].filter(([name, contents]) => {
      const other = copied.get(name);
      return contents === 'folder'
        ? other !== 'folder'
        : !(other instanceof Buffer && other.equals(contents));
    });
    expect(differing.map(([name]) => name)).toEqual([]);
    // the gzip stream is far smaller than the cluster (the first WAL segment alone is 16 MB of mostly zeros)
    expect(statSync(path.join(packed, 'files.gz')).size).toBeLessThan(16 * 1024 * 1024);
    expect(statSync(path.join(copy, 'PG_VERSION')).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(copy, 'base')).mode & 0o777).toBe(0o700);
  });

  it('is remade only when the running PGlite did not make it', async () => {
    expect(await buildTemplate(template)).toBe('up to date');
    const other = path.join(await freshDir(), 'template');
    await cp(template, other, { recursive: true });
    const manifest = manifestOf(other);
    writeFileSync(
      path.join(other, 'manifest.json'),
      JSON.stringify({ ...manifest, pglite: '@electric-sql/pglite@0.0.1' }),
    );
    expect(checkTemplate(other, installedPglite()!.identity)).toMatchObject({
      usable: false,
      missing: false,
    });
    expect(await buildTemplate(other)).toBe('built');
    expect(manifestOf(other).pglite).toBe(installedPglite()!.identity);
  });

  it('makes a first start copy it instead of running initdb; the copy is a working cluster', async () => {
    const dataDir = await freshDir();
    const { logger, records } = recordingLogger();
    await initCluster(path.join(dataDir, 'db'), 'svc_user', logger, template);
    expect(createdRecord(records)).toMatchObject({ source: 'template' });
    expect(records.filter((record) => record.level === 40)).toEqual([]);
    expect(readdirSync(path.join(dataDir, 'db'))).toEqual(['svc_user']); // no scratch folder left
    await expectWorkingCluster(dataDir);
  });

  it('is not looked for when the build has none: initdb, without a warning', async () => {
    expect(checkTemplate(path.join(root, 'nowhere'), installedPglite()!.identity)).toEqual({
      usable: false,
      missing: true,
      reason: 'no template in the build',
    });
  });

  it('made by another PGlite: refused with the reason, and initdb makes the cluster', async () => {
    const other = path.join(await freshDir(), 'template');
    await cp(template, other, { recursive: true });
    const manifest = manifestOf(other);
    await writeFile(
      path.join(other, 'manifest.json'),
      JSON.stringify({ ...manifest, pglite: '@electric-sql/pglite@0.4.0 pglite.wasm=1' }),
    );
    const dataDir = await freshDir();
    const { logger, records } = recordingLogger();
    await initCluster(path.join(dataDir, 'db'), 'svc_user', logger, other);
    const warning = records.find((record) => record.level === 40);
    expect(warning?.msg).toBe('not using the database template; running initdb');
    expect(String(warning?.reason)).toMatch(
      /^template made by @electric-sql\/pglite@0\.4\.0 pglite\.wasm=1, running @electric-sql\/pglite@/,
    );
    expect(createdRecord(records)).toMatchObject({ source: 'initdb' });
    await expectWorkingCluster(dataDir);
  });

  it('damaged: the copy is abandoned, initdb makes the cluster, nothing of the copy is left', async () => {
    const other = path.join(await freshDir(), 'template');
    await cp(template, other, { recursive: true });
    const gz = path.join(other, 'files.gz');
    const bytes = await readFile(gz);
    const middle = Math.floor(bytes.length / 2);
    bytes[middle] = bytes[middle]! ^ 0xff; // fails gzip's check (or inflation) part-way
    await writeFile(gz, bytes);
    const dataDir = await freshDir();
    const { logger, records } = recordingLogger();
    await initCluster(path.join(dataDir, 'db'), 'svc_user', logger, other);
    expect(records.find((record) => record.level === 40)?.msg).toBe(
      'the database template could not be copied; running initdb',
    );
    expect(createdRecord(records)).toMatchObject({ source: 'initdb' });
    expect(readdirSync(path.join(dataDir, 'db'))).toEqual(['svc_user']);
    await expectWorkingCluster(dataDir);
  });

  it('refuses contents that do not match the manifest', async () => {
    const check = checkTemplate(template, installedPglite()!.identity);
    if (!check.usable) throw new Error(check.reason);
    const { manifest } = check;
    const walSegment = manifest.files.find((file) => file.path.startsWith('pg_wal/'))!;
    const longer = {
      ...manifest,
      files: manifest.files.map((f) => (f === walSegment ? { ...f, size: f.size - 1 } : f)),
    };
    await expect(unpackTemplate(template, longer, path.join(await freshDir(), 'c'))).rejects.toThrow(
      'template contents longer than its manifest',
    );
    const shorter = { ...manifest, files: [...manifest.files, { path: 'extra', size: 1 }] };
    await expect(unpackTemplate(template, shorter, path.join(await freshDir(), 'c'))).rejects.toThrow(
      'template contents shorter than its manifest',
    );
    const truncated = path.join(await freshDir(), 'template');
    await cp(template, truncated, { recursive: true });
    await truncate(path.join(truncated, 'files.gz'), 1000);
    await expect(unpackTemplate(truncated, manifest, path.join(await freshDir(), 'c'))).rejects.toThrow();
    for (const bad of ['../escape', '/abs', 'a/../../b']) {
      const evil = path.join(await freshDir(), 'template');
      await cp(template, evil, { recursive: true });
      writeFileSync(
        path.join(evil, 'manifest.json'),
        JSON.stringify({ ...manifest, files: [{ path: bad, size: 0 }, ...manifest.files] }),
      );
      expect(checkTemplate(evil, installedPglite()!.identity)).toMatchObject({
        usable: false,
        reason: 'template manifest with an invalid entry',
      });
    }
    expect(existsSync(path.join(root, 'escape'))).toBe(false);
  });
});

describe('the template run from source', () => {
  it("is the package's last build (what `npm test` builds before the suite)", () => {
    const serverPackage = path.resolve(import.meta.dirname, '..', '..', '..');
    expect(builtTemplateDir()).toBe(path.join(serverPackage, 'dist', 'db-template'));
  });
});
