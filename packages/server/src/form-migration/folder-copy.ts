import { cp, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** Files and bytes under a folder (symbolic links counted as entries, not followed). */
export interface FolderSummary {
  files: number;
  bytes: number;
}

function inside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

export async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}

/** Counts the files and bytes under `root`, leaving out the excluded folders. A missing root counts zero. */
export async function summarizeFolder(root: string, exclude: readonly string[] = []): Promise<FolderSummary> {
  const summary: FolderSummary = { files: 0, bytes: 0 };
  if (!(await exists(root))) return summary;
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (exclude.some((folder) => inside(full, folder))) continue;
      if (entry.isDirectory()) await walk(full);
      else {
        summary.files += 1;
        if (entry.isFile()) summary.bytes += (await stat(full)).size;
      }
    }
  };
  await walk(root);
  return summary;
}

/** True when the folder is missing or empty. */
export async function folderIsEmpty(dir: string): Promise<boolean> {
  if (!(await exists(dir))) return true;
  return (await readdir(dir)).length === 0;
}

/**
 * Copies a folder (timestamps and modes kept, links as links) into a new or empty folder, leaving out the
 * excluded folders, and checks that the copy has as many files and bytes as the source. A missing source copies
 * nothing. Returns what was copied.
 */
export async function copyFolder(
  from: string,
  to: string,
  exclude: readonly string[] = [],
): Promise<FolderSummary> {
  const source = path.resolve(from);
  const target = path.resolve(to);
  if (inside(target, source) || inside(source, target)) {
    throw new Error(`cannot copy ${source} to ${target}: one folder lies inside the other`);
  }
  const excluded = exclude.map((folder) => path.resolve(folder));
  const expected = await summarizeFolder(source, excluded);
  await mkdir(target, { recursive: true });
  if (await exists(source)) {
    // Entry by entry into the (new or empty) target: Node 24's cp refuses an existing target folder itself
    // under errorOnExist, which must stay on so nothing in the target is ever overwritten.
    for (const entry of await readdir(source)) {
      const from = path.join(source, entry);
      if (excluded.some((folder) => inside(from, folder))) continue;
      await cp(from, path.join(target, entry), {
        recursive: true,
        preserveTimestamps: true,
        verbatimSymlinks: true,
        errorOnExist: true,
        force: false,
        filter: (file) => !excluded.some((folder) => inside(path.resolve(file), folder)),
      });
    }
  }
  const copied = await summarizeFolder(target);
  if (copied.files < expected.files || copied.bytes < expected.bytes) {
    throw new Error(
      `the copy of ${source} is incomplete: ${copied.files} files / ${copied.bytes} bytes of ` +
        `${expected.files} / ${expected.bytes}`,
    );
  }
  return expected;
}
