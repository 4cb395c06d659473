/**
 * Paths inside a storage mount as the storage API takes them: relative to the mount root, '/'-separated,
 * no leading or trailing '/', '' for the root (docs/storage.md, "Paths"). The node checks them again.
 */

/** A typed or joined path in the API's form: surrounding blanks and slashes, and empty segments, dropped. */
export function normaliseMountPath(raw: string): string {
  return raw
    .trim()
    .split('/')
    .filter((segment) => segment !== '')
    .join('/');
}

export function joinPath(dir: string, name: string): string {
  const base = normaliseMountPath(dir);
  const child = normaliseMountPath(name);
  if (!base) return child;
  if (!child) return base;
  return `${base}/${child}`;
}

/** The folder that holds a path ('' for the root and for entries directly in it). */
export function parentPath(path: string): string {
  const normal = normaliseMountPath(path);
  const cut = normal.lastIndexOf('/');
  return cut < 0 ? '' : normal.slice(0, cut);
}

/** The last segment of a path ('' for the root). */
export function baseName(path: string): string {
  const normal = normaliseMountPath(path);
  return normal.slice(normal.lastIndexOf('/') + 1);
}

export interface Crumb {
  /** '' for the root: the caller shows the mount's name there. */
  name: string;
  path: string;
}

/** The root and every folder down to `path`, for a breadcrumb trail. */
export function breadcrumbs(path: string): Crumb[] {
  const crumbs: Crumb[] = [{ name: '', path: '' }];
  let current = '';
  for (const segment of normaliseMountPath(path).split('/')) {
    if (!segment) continue;
    current = current ? `${current}/${segment}` : segment;
    crumbs.push({ name: segment, path: current });
  }
  return crumbs;
}

/** Whether `path` is `ancestor` itself or lies below it (a copy or move there would go into itself). */
export function isSameOrInside(path: string, ancestor: string): boolean {
  const target = normaliseMountPath(path);
  const base = normaliseMountPath(ancestor);
  if (!base) return true;
  return target === base || target.startsWith(`${base}/`);
}

/** A mount path in the media service's normalised form of library sources: leading '/', '/' = root. */
export function toMediaPath(path: string): string {
  return `/${normaliseMountPath(path)}`;
}

/** A library source's path back in the storage API's form. */
export function fromMediaPath(mediaPath: string): string {
  return normaliseMountPath(mediaPath);
}

/** A name for a new file or folder: one segment, no separators, not '.' or '..'. */
export function isPlainName(name: string): boolean {
  const value = name.trim();
  return value !== '' && value !== '.' && value !== '..' && !/[/\\\0]/.test(value);
}
