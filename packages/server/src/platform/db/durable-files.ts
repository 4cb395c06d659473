import { open, readdir } from 'node:fs/promises';
import path from 'node:path';

/** fsync(2) of each path (files or folders), `parallel` at a time. */
export async function syncPaths(paths: readonly string[], parallel = 32): Promise<void> {
  for (let i = 0; i < paths.length; i += parallel) {
    await Promise.all(
      paths.slice(i, i + parallel).map(async (file) => {
        const handle = await open(file, 'r');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      }),
    );
  }
}

/** fsync of every file, then every folder (deepest first), under dir. */
export async function syncTree(dir: string): Promise<void> {
  const files: string[] = [];
  const folders: string[] = [];
  const walk = async (folder: string) => {
    folders.push(folder);
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) files.push(full);
    }
  };
  await walk(dir);
  await syncPaths(files);
  await syncPaths(folders.reverse(), 1);
}
