import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { oneLine } from './errors.js';
import { pgliteStartParams, WASM_FLAGS } from './pglite-settings.js';

/*
 * PostgreSQL's initdb as PGlite runs it: in memory, in a second instance and a second WebAssembly module,
 * memory the process never gives back to the system (~150 MB for good). So it runs in a short-lived child
 * process that writes the new cluster into a folder and exits.
 */

/** The PGlite package this program runs: its CommonJS entry (which a `node -e` child can require), its identity. */
export interface InstalledPglite {
  entry: string;
  /** The package version and the sizes of the files initdb's output depends on: equal identity, equal clusters. */
  identity: string;
}

let installed: InstalledPglite | null | undefined;

/** The installed PGlite package; undefined when it cannot be found on disk (e.g. inside a single executable). */
export function installedPglite(): InstalledPglite | undefined {
  if (installed !== undefined) return installed ?? undefined;
  installed = null;
  try {
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    const distDir = path.dirname(entry);
    const { version } = JSON.parse(readFileSync(path.join(distDir, '..', 'package.json'), 'utf8')) as {
      version?: unknown;
    };
    if (typeof version !== 'string') return undefined;
    const sizes = ['pglite.wasm', 'pglite.data', 'initdb.wasm'].map(
      (file) => `${file}=${statSync(path.join(distDir, file)).size}`,
    );
    installed = { entry, identity: [`@electric-sql/pglite@${version}`, ...sizes].join(' ') };
  } catch {
    // not resolvable: callers fall back to what works without the package's files
  }
  return installed ?? undefined;
}

const INIT_SCRIPT = `
const [entry, dir, params] = process.argv.slice(1);
const { PGlite } = require(entry);
PGlite.create(dir, { startParams: JSON.parse(params) })
  .then((db) => db.close())
  .then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(String((err && err.message) || err) + '\\n');
      process.exit(1);
    },
  );
`;

/**
 * Creates a new cluster in `dir` (which must not hold one) in a child process. Its files are not synced. No
 * time limit: on a busy machine it takes what it takes, and the start-up progress says that it is running.
 */
export function runInitdbChild(entry: string, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...WASM_FLAGS, '-e', INIT_SCRIPT, entry, dir, JSON.stringify(pgliteStartParams())],
      { stdio: ['ignore', 'ignore', 'pipe'], env: process.env },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4_000) stderr += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else {
        const why = oneLine(stderr) || (signal ? `killed by ${signal}` : `exit code ${code}`);
        reject(new Error(`initdb failed: ${why}`));
      }
    });
  });
}
