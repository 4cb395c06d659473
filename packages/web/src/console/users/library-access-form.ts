import type { LibraryAccess, LibraryAccessMode } from '@svc/contracts';

/** The library access form: the mode and the chosen libraries (by id). */
export interface LibraryAccessValues {
  mode: LibraryAccessMode;
  libraryIds: string[];
}

/**
 * The form's values of a saved access. When the library list is known, ids of libraries deleted since are
 * dropped (they match nothing), so they vanish from the form and from the next save.
 */
export function libraryAccessValuesFrom(
  access: { mode: LibraryAccessMode; libraryIds: readonly string[] },
  existing: readonly string[] | null,
): LibraryAccessValues {
  const known = existing === null ? null : new Set(existing);
  return {
    mode: access.mode,
    libraryIds: access.libraryIds.filter((id) => known === null || known.has(id)),
  };
}

/** PUT …/library-access: the list only with ALLOW_LIST (the server refuses it otherwise); ids trimmed, once. */
export function toLibraryAccessBody(values: LibraryAccessValues): LibraryAccess {
  if (values.mode !== 'ALLOW_LIST') return { mode: values.mode, libraryIds: [] };
  const ids = values.libraryIds.map((id) => id.trim()).filter((id) => id !== '');
  return { mode: 'ALLOW_LIST', libraryIds: [...new Set(ids)] };
}

/** The schema reports problems of `libraryIds.N`; the form shows them on the list. */
export function libraryAccessFormErrors(errors: Record<string, string>): Record<string, string> {
  const mapped: Record<string, string> = {};
  for (const [path, message] of Object.entries(errors)) {
    mapped[path.startsWith('libraryIds') ? 'libraryIds' : path] ??= message;
  }
  return mapped;
}
