/** What an entry was before a deletion or an overwrite, for the audit log. */
export const entryFacts = (entry: { path: string; type: string; size: number; mtime: string }) => ({
  path: entry.path,
  type: entry.type,
  size: entry.size,
  mtime: entry.mtime,
});

/** The audit target of a file or folder: `<mount id>:<path>`. */
export const fileTarget = (mountId: string, path: string) => ({ type: 'file', id: `${mountId}:${path}` });
