// Builds the web app (Vite) and the svc program (one esbuild bundle; npm dependencies stay external).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readFileSync, chmodSync } from 'node:fs';

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
  await build({
    entryPoints: ['packages/server/src/cli/main.ts'],
    outfile: 'packages/server/dist/svc.mjs',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    external,
    define: { __SVC_VERSION__: JSON.stringify(rootPackage.version) },
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'warning',
  });
  chmodSync('packages/server/dist/svc.mjs', 0o755);
}
