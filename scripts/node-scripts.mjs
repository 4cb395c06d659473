// The worker-node scripts (packages/server/src/services/config/install/node-scripts/*.sh) as the value of the
// esbuild `define` __SVC_NODE_SCRIPTS__: the bundles carry their text, so the built program and the node
// binary need no files beside them (see node-scripts.ts).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

export function nodeScriptsDefine(root) {
  const dir = path.join(root, 'packages/server/src/services/config/install/node-scripts');
  const scripts = {};
  for (const file of readdirSync(dir).sort()) {
    if (file.endsWith('.sh')) scripts[file.slice(0, -3)] = readFileSync(path.join(dir, file), 'utf8');
  }
  return JSON.stringify(scripts);
}
