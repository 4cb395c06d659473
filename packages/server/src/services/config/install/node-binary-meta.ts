// Injected at the top of the node binary's bundle (scripts/build-node-binary.mjs): the single executable
// application runs ONE CommonJS script, where `import.meta.url` does not exist. The build replaces every
// `import.meta.url` of the program and its libraries with `svcImportMetaUrl`, a file URL inside the folder
// the binary extracts its embedded assets to (PGlite's pglite.wasm, initdb.wasm and pglite.data), so
// PGlite finds them with `new URL('./pglite.wasm', import.meta.url)` exactly as it does from node_modules.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Replaced at build time with a hash of the embedded assets. */
declare const __SVC_NODE_ASSET_KEY__: string | undefined;

export const NODE_ASSET_KEY = typeof __SVC_NODE_ASSET_KEY__ === 'string' ? __SVC_NODE_ASSET_KEY__ : 'dev';

/**
 * Folder of the extracted assets: SVC_NODE_ASSETS_DIR, else `.svc-assets/<key>` beside the executable (the
 * node's work directory keeps its binary in `bin/`, so the assets live in `bin/.svc-assets/`).
 */
export function nodeAssetsDir(env: NodeJS.ProcessEnv = process.env, execPath = process.execPath): string {
  const base = env.SVC_NODE_ASSETS_DIR?.trim();
  return base
    ? path.resolve(base, NODE_ASSET_KEY)
    : path.join(path.dirname(execPath), '.svc-assets', NODE_ASSET_KEY);
}

export const svcImportMetaUrl: string = pathToFileURL(path.join(nodeAssetsDir(), 'svc-node.cjs')).href;
