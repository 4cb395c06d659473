// Entry of the node binary: a Node single executable application built by scripts/build-node-binary.mjs.
// It runs `svc node storage|play-agent` (and `--version`, `--help`) of the same program as svc.mjs; the
// control roles and the standalone supervisor stay with the Node.js install (they fork svc.mjs).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sea from 'node:sea';
import { nodeAssetsDir } from './node-binary-meta.js';

/** Files embedded in the executable (SEA assets), written at build time: name, size and SHA-256. */
declare const __SVC_NODE_ASSETS__: readonly NodeAsset[] | undefined;

export interface NodeAsset {
  name: string;
  size: number;
  sha256: string;
}

const EMBEDDED: readonly NodeAsset[] = typeof __SVC_NODE_ASSETS__ === 'undefined' ? [] : __SVC_NODE_ASSETS__;

/** The commands the node binary runs; anything else gets one line and exit code 2. */
export function isNodeBinaryCommand(args: readonly string[]): boolean {
  const [command, role] = args;
  if (command === undefined || ['--version', '--help', '-h', 'help'].includes(command)) return true;
  return command === 'node' && (role === 'storage' || role === 'play-agent');
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function intact(file: string, asset: NodeAsset): boolean {
  try {
    const data = readFileSync(file);
    return data.length === asset.size && sha256(data) === asset.sha256;
  } catch {
    return false;
  }
}

/**
 * Writes the embedded assets (PGlite's WebAssembly and data files) into the assets folder unless an intact
 * copy is there, each through a temporary file and a rename, and removes folders of other builds beside it.
 */
export function extractNodeAssets(dir: string, read: (name: string) => ArrayBuffer): void {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  for (const asset of EMBEDDED) {
    const target = path.join(dir, asset.name);
    if (existsSync(target) && intact(target, asset)) continue;
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, Buffer.from(read(asset.name)), { mode: 0o644 });
    if (!intact(temporary, asset)) {
      rmSync(temporary, { force: true });
      throw new Error(`embedded asset ${asset.name} is damaged`);
    }
    renameSync(temporary, target);
  }
  // Folders of earlier builds (named by their asset key) beside this one are no longer used.
  const parent = path.dirname(dir);
  for (const other of readdirSync(parent)) {
    if (other !== path.basename(dir) && /^[0-9a-f]{16}$/.test(other)) {
      rmSync(path.join(parent, other), { recursive: true, force: true });
    }
  }
}

function run(): void {
  const args = process.argv.slice(2);
  if (!isNodeBinaryCommand(args)) {
    process.stderr.write(
      `svc: this binary runs worker nodes only: svc node storage|play-agent, svc --version\n`,
    );
    process.exit(2);
  }
  if (args[0] === 'node' && args[1] === 'storage' && sea.isSea()) {
    // Only the storage node opens the embedded database; the play-agent never loads PGlite.
    try {
      extractNodeAssets(nodeAssetsDir(), (name) => sea.getAsset(name));
    } catch (error) {
      process.stderr.write(
        `svc: cannot write the embedded database files to ${nodeAssetsDir()}: ${(error as Error).message}\n`,
      );
      process.exit(1);
    }
  }
  // main.ts reads process.argv and runs the command when it is loaded.
  void import('../../../cli/main.js');
}

run();
