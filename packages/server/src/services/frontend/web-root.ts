import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The built web app: next to the bundle (packages/server/dist → packages/web/dist) or, when
 * running from source, relative to this file. SVC_WEB_DIR points elsewhere on purpose-built images.
 */
export function findWebRoot(explicit: string | undefined): string | undefined {
  if (explicit) return existsSync(path.join(explicit, 'index.html')) ? explicit : undefined;
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, '../../web/dist'), path.resolve(here, '../../../../web/dist')];
  return candidates.find((candidate) => existsSync(path.join(candidate, 'index.html')));
}

/** Relative paths (with '/') of every file below root, read once at start. */
export function listFiles(root: string): Set<string> {
  const files = new Set<string>();
  const walk = (dir: string, prefix: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path.join(dir, entry.name), relative);
      else if (entry.isFile()) files.add(relative);
    }
  };
  walk(root, '');
  return files;
}
