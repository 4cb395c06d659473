/** The files a test drive server serves: drive paths ('/Movies/a.mkv') to bytes; folders are implied. */
export type DriveTree = Record<string, Buffer>;

export interface TreeEntry {
  name: string;
  path: string;
  dir: boolean;
  size: number;
}

/** The entries directly inside `folder` ('/' or '/Movies'), folders first; null when no such folder. */
export function childrenOf(tree: DriveTree, folder: string): TreeEntry[] | null {
  const prefix = folder === '/' ? '/' : `${folder}/`;
  const children = new Map<string, TreeEntry>();
  for (const [file, bytes] of Object.entries(tree)) {
    if (!file.startsWith(prefix)) continue;
    const [name, ...rest] = file.slice(prefix.length).split('/');
    if (!name) continue;
    const dir = rest.length > 0;
    children.set(name, { name, path: `${prefix}${name}`, dir, size: dir ? 0 : bytes.length });
  }
  if (children.size === 0 && folder !== '/') return null;
  return [...children.values()].sort((a, b) => Number(b.dir) - Number(a.dir) || a.name.localeCompare(b.name));
}

/** The entry at a drive path, or null. */
export function entryAt(tree: DriveTree, path: string): TreeEntry | null {
  if (path === '/') return { name: '', path: '/', dir: true, size: 0 };
  const bytes = tree[path];
  if (bytes) return { name: path.split('/').at(-1)!, path, dir: false, size: bytes.length };
  return childrenOf(tree, path) ? { name: path.split('/').at(-1)!, path, dir: true, size: 0 } : null;
}

/** Answers a GET of `bytes` honouring one `bytes=a-b` Range (206), or the whole (200). */
export function rangeAnswer(
  bytes: Buffer,
  range: string | undefined,
): { status: number; headers: Record<string, string>; body: Buffer } {
  const match = range ? /^bytes=(\d+)-(\d*)$/.exec(range) : null;
  if (!match) {
    return {
      status: 200,
      headers: { 'content-length': String(bytes.length), 'accept-ranges': 'bytes' },
      body: bytes,
    };
  }
  const start = Number(match[1]);
  const end = match[2] ? Math.min(Number(match[2]), bytes.length - 1) : bytes.length - 1;
  if (start > end)
    return { status: 416, headers: { 'content-range': `bytes */${bytes.length}` }, body: Buffer.alloc(0) };
  return {
    status: 206,
    headers: {
      'content-range': `bytes ${start}-${end}/${bytes.length}`,
      'content-length': String(end - start + 1),
    },
    body: bytes.subarray(start, end + 1),
  };
}

/** Download requests of a test server as they overlap: multithread fills are seen here. */
export interface Transfers {
  /** Downloads being answered now. */
  active: number;
  /** The most at once so far (reset it to measure anew). */
  maxActive: number;
  /** Downloads that asked for a byte range. */
  ranged: number;
  /** Each download waits this long before its answer starts, so that parallel ones overlap. */
  delayMs: number;
}

export const newTransfers = (): Transfers => ({ active: 0, maxActive: 0, ranged: 0, delayMs: 0 });

/** Counts one download from its arrival until its response is done (or cut), then runs `answer`. */
export async function counted(
  transfers: Transfers,
  request: { headers: { range?: string | undefined } },
  response: { once(event: 'close', listener: () => void): unknown },
  answer: () => void | Promise<void>,
): Promise<void> {
  transfers.active += 1;
  transfers.maxActive = Math.max(transfers.maxActive, transfers.active);
  if (request.headers.range) transfers.ranged += 1;
  response.once('close', () => (transfers.active -= 1));
  if (transfers.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, transfers.delayMs));
  await answer();
}
