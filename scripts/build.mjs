// Builds the web app (Vite) and the svc program (one esbuild bundle; npm dependencies stay external).
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { readFileSync, chmodSync } from 'node:fs';
import { nodeScriptsDefine } from './node-scripts.mjs';

const only = process.argv[2];

if (!only || only === 'web') {
  const vite = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], {
    cwd: 'packages/web',
    stdio: 'inherit',
  });
  if (vite.status !== 0) process.exit(vite.status ?? 1);
}

if (!only || only === 'server') {
  const serverPackage = JSON.parse(readFileSync('packages/server/package.json', 'utf8'));
  const rootPackage = JSON.parse(readFileSync('package.json', 'utf8'));
  const external = Object.keys(serverPackage.dependencies ?? {}).filter((name) => !name.startsWith('@svc/'));
  const result = await build({
    entryPoints: ['packages/server/src/cli/main.ts'],
    // Code splitting: each command and process role loads only its own modules (and their libraries).
    outdir: 'packages/server/dist',
    entryNames: 'svc',
    chunkNames: 'chunk-[hash]',
    outExtension: { '.js': '.mjs' },
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    external,
    define: {
      __SVC_VERSION__: JSON.stringify(rootPackage.version),
      __SVC_NODE_SCRIPTS__: nodeScriptsDefine('.'),
    },
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'warning',
    metafile: true,
  });
  // Chunk names carry a hash: drop the ones this build no longer produced (after writing the new ones, so a
  // process starting meanwhile finds a complete set).
  const produced = new Set(Object.keys(result.metafile.outputs).map((file) => path.basename(file)));
  // Folders (node-binary/, written by scripts/build-node-binary.mjs) are not this build's output.
  for (const entry of readdirSync('packages/server/dist', { withFileTypes: true })) {
    if (entry.isFile() && !produced.has(entry.name))
      rmSync(path.join('packages/server/dist', entry.name), { force: true });
  }
  chmodSync('packages/server/dist/svc.mjs', 0o755);
  // The embedded database's template cluster (dist/db-template), made with the PGlite the build ships.
  const template = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-db-template.ts'], {
    stdio: 'inherit',
  });
  if (template.status !== 0) process.exit(template.status ?? 1);
}
