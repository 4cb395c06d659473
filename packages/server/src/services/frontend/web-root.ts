import { existsSync } from 'node:fs';
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
