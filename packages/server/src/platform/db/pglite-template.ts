import { randomBytes } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  createWriteStream,
  mkdirSync,
  openSync,
  readFileSync,
  writeSync,
} from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGunzip, createGzip } from 'node:zlib';
import { describeError, errorCode } from './errors.js';
import { installedPglite, runInitdbChild } from './pglite-initdb.js';

/*
 * A new cluster copied from a template instead of running initdb on the user's machine: initdb costs seconds
 * of CPU per cluster (much longer on a busy machine), a copy a fraction of a second. The build makes the
 * template with the PGlite it ships (scripts/build-db-template.ts), right after bundling: initdb's output,
 * packed as one gzip stream of the files (4.5 MB for 39 MB, most of it the zero-filled first WAL segment)
 * and a manifest. The manifest names the PGlite that made it (version and the sizes of its engine files); a
 * template made by another PGlite, a missing one (running from source) or a damaged one (gzip checks its
 * CRC, the manifest the sizes) is not used: the cluster is then made by initdb, as before.
 *
 * initdb's output does not depend on the machine: PGlite runs it with fixed arguments (UTF8, C.UTF-8, trust)
 * and writes UTC as the time zone. Every copy carries the template's system identifier (pg_control), which
 * only streaming replication and WAL archives compare; embedded instances use neither.
 */

export const TEMPLATE_FORMAT = 1;
const MANIFEST_FILE = 'manifest.json';
const CONTENT_FILE = 'files.gz';

export interface TemplateManifest {
  format: number;
  /** installedPglite().identity of the PGlite that made it. */
  pglite: string;
  /** Folders, parents first (empty ones included: PostgreSQL needs them). */
  folders: string[];
  /** Files in the order of their contents in the gzip stream. */
  files: { path: string; size: number }[];
}

export type TemplateCheck =
  { usable: true; manifest: TemplateManifest } | { usable: false; missing: boolean; reason: string };

/**
 * Where the build puts the template: beside the bundle's chunks (dist/db-template). Run from source (the
 * tests, `tsx`), this file lies in src/platform/db and the template of the package's last build is used,
 * when there is one: it is checked against the PGlite that runs like any other.
 */
export function builtTemplateDir(): string {
  const here = fileURLToPath(import.meta.url);
  const sourceFolder = path.join('src', 'platform', 'db');
  if (path.dirname(here).endsWith(sourceFolder)) {
    return path.resolve(path.dirname(here), '..', '..', '..', 'dist', 'db-template');
  }
  return fileURLToPath(new URL('./db-template', import.meta.url));
}

/** Whether the template in `templateDir` can make clusters for the PGlite identified by `identity`. */
export function checkTemplate(templateDir: string, identity: string | undefined): TemplateCheck {
  let manifest: TemplateManifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(templateDir, MANIFEST_FILE), 'utf8')) as TemplateManifest;
  } catch (err) {
    if (errorCode(err) === 'ENOENT')
      return { usable: false, missing: true, reason: 'no template in the build' };
    return { usable: false, missing: false, reason: `unreadable template manifest: ${describeError(err)}` };
  }
  if (manifest.format !== TEMPLATE_FORMAT) {
    return { usable: false, missing: false, reason: `template format ${String(manifest.format)}` };
  }
  if (!identity) return { usable: false, missing: false, reason: 'the PGlite package cannot be identified' };
  if (manifest.pglite !== identity) {
    return {
      usable: false,
      missing: false,
      reason: `template made by ${manifest.pglite}, running ${identity}`,
    };
  }
  const badPath = [...manifest.folders, ...manifest.files.map((file) => file.path)].find(
    (entry) => typeof entry !== 'string' || !isInside(entry),
  );
  if (
    badPath !== undefined ||
    !manifest.files.every((file) => Number.isSafeInteger(file.size) && file.size >= 0)
  ) {
    return { usable: false, missing: false, reason: 'template manifest with an invalid entry' };
  }
  if (!manifest.files.some((file) => file.path === 'PG_VERSION')) {
    return { usable: false, missing: false, reason: 'template without PG_VERSION' };
  }
  return { usable: true, manifest };
}

function isInside(relative: string): boolean {
  return (
    relative !== '' &&
    !path.isAbsolute(relative) &&
    relative.split('/').every((part) => part !== '' && part !== '.' && part !== '..')
  );
}

/**
 * Writes the template's files into `target` (an empty or missing folder). Folders get mode 0700 and files
 * 0600, as PostgreSQL's own initdb makes them. Nothing is synced: the caller syncs before using it.
 * Throws when the contents do not match the manifest or fail gzip's check.
 *
 * The ~1000 small files are written with synchronous calls: through the thread pool each open, write and
 * close waits its turn, which on a busy machine took seconds instead of a fraction of one. Nothing else of
 * the process waits meanwhile (it is still starting).
 */
export async function unpackTemplate(
  templateDir: string,
  manifest: TemplateManifest,
  target: string,
): Promise<void> {
  mkdirSync(target, { recursive: true, mode: 0o700 });
  for (const folder of manifest.folders)
    mkdirSync(path.join(target, folder), { recursive: true, mode: 0o700 });
  const files = manifest.files;
  let index = 0;
  let current: { fd: number; remaining: number } | undefined;
  // Opens the next file; files of size 0 are created and closed on the way.
  const nextFile = (): boolean => {
    while (index < files.length) {
      const file = files[index++]!;
      const fd = openSync(path.join(target, file.path), 'wx', 0o600);
      if (file.size > 0) {
        current = { fd, remaining: file.size };
        return true;
      }
      closeSync(fd);
    }
    return false;
  };
  try {
    const gunzip = createReadStream(path.join(templateDir, CONTENT_FILE)).pipe(
      createGunzip({ chunkSize: 1 << 20 }),
    );
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      let offset = 0;
      while (offset < chunk.length) {
        if (!current && !nextFile()) throw new Error('template contents longer than its manifest');
        const writing = current!;
        const take = Math.min(writing.remaining, chunk.length - offset);
        writeFully(writing.fd, chunk, offset, take);
        offset += take;
        writing.remaining -= take;
        if (writing.remaining === 0) {
          current = undefined;
          closeSync(writing.fd);
        }
      }
    }
    if (current || nextFile()) throw new Error('template contents shorter than its manifest');
  } finally {
    if (current) closeSync(current.fd);
  }
}

function writeFully(fd: number, buffer: Buffer, offset: number, length: number): void {
  while (length > 0) {
    const written = writeSync(fd, buffer, offset, length);
    offset += written;
    length -= written;
  }
}

/** Packs the cluster in `clusterDir` (shut down cleanly) as a template into `templateDir`, replacing one there. */
export async function packTemplate(clusterDir: string, templateDir: string, identity: string): Promise<void> {
  const folders: string[] = [];
  const files: { path: string; size: number }[] = [];
  const walk = async (relative: string) => {
    const entries = await readdir(path.join(clusterDir, relative), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        folders.push(child);
        await walk(child);
      } else if (entry.isFile()) {
        files.push({ path: child, size: (await stat(path.join(clusterDir, child))).size });
      } else {
        throw new Error(`unexpected entry in a new cluster: ${child}`);
      }
    }
  };
  await walk('');
  const staging = `${templateDir}.${randomBytes(4).toString('hex')}.tmp`;
  await mkdir(staging, { recursive: true });
  try {
    const contents = async function* () {
      for (const file of files) yield await readFile(path.join(clusterDir, file.path));
    };
    await pipeline(contents, createGzip({ level: 9 }), createWriteStream(path.join(staging, CONTENT_FILE)));
    const manifest: TemplateManifest = { format: TEMPLATE_FORMAT, pglite: identity, folders, files };
    await writeFile(path.join(staging, MANIFEST_FILE), `${JSON.stringify(manifest)}\n`);
    await rm(templateDir, { recursive: true, force: true });
    await rename(staging, templateDir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * Makes the template for the installed PGlite (initdb in a child process, then packTemplate), unless
 * `templateDir` already holds one made by this PGlite.
 */
export async function buildTemplate(templateDir: string): Promise<'built' | 'up to date'> {
  const pglite = installedPglite();
  if (!pglite) throw new Error('cannot find the PGlite package to make the database template with');
  if (checkTemplate(templateDir, pglite.identity).usable) return 'up to date';
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'svc-db-template-'));
  try {
    const cluster = path.join(scratch, 'cluster');
    await runInitdbChild(pglite.entry, cluster);
    await packTemplate(cluster, templateDir, pglite.identity);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return 'built';
}
