// Makes the embedded database's template cluster for the build (packages/server/dist/db-template): initdb
// once, here, with the PGlite the build ships, instead of on every user's first start (docs/database.md).
// Run by scripts/build.mjs after bundling; does nothing when the template there was made by this PGlite.
import path from 'node:path';
import { buildTemplate } from '../packages/server/src/platform/db/pglite-template.js';

const templateDir = path.resolve(process.argv[2] ?? 'packages/server/dist/db-template');
const began = performance.now();
const outcome = await buildTemplate(templateDir);
if (outcome === 'built') {
  console.log(`database template: ${templateDir} (${((performance.now() - began) / 1000).toFixed(1)} s)`);
}
