import type { Library, LibraryType } from '@svc/contracts';
import { fromMediaPath, toMediaPath } from '../storage/mount-path.js';

/** One source as the form holds it: the folder path in the storage API's form ('' = mount root). */
export interface SourceValue {
  nodeId: string;
  mountId: string;
  path: string;
}

export interface LibraryFormValues {
  name: string;
  type: LibraryType;
  sources: SourceValue[];
}

export function emptyLibraryValues(): LibraryFormValues {
  return { name: '', type: 'movies', sources: [] };
}

export function libraryToValues(library: Library): LibraryFormValues {
  return {
    name: library.name,
    type: library.type,
    sources: library.sources.map((source) => ({
      nodeId: source.nodeId,
      mountId: source.mountId,
      path: fromMediaPath(source.path),
    })),
  };
}

export function sourceKey(source: SourceValue): string {
  return `${source.nodeId}\u0000${source.mountId}\u0000${toMediaPath(source.path)}`;
}

/** Adds sources that are not listed yet (the same folder twice is refused by the API). */
export function addSources(current: readonly SourceValue[], added: readonly SourceValue[]): SourceValue[] {
  const seen = new Set(current.map(sourceKey));
  const out = [...current];
  for (const source of added) {
    const key = sourceKey(source);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(source);
  }
  return out;
}

function requestSources(values: LibraryFormValues) {
  return values.sources.map((source) => ({
    nodeId: source.nodeId.trim(),
    mountId: source.mountId.trim(),
    path: toMediaPath(source.path),
  }));
}

/** POST /api/media/libraries body (checked with createLibraryRequestSchema). */
export function toCreateLibraryRequest(values: LibraryFormValues) {
  return { name: values.name.trim(), type: values.type, sources: requestSources(values) };
}

/** PATCH body: only what changed (the type is fixed); empty when nothing did. */
export function toUpdateLibraryRequest(values: LibraryFormValues, original: Library) {
  const name = values.name.trim();
  const sources = requestSources(values);
  const before = original.sources.map(
    (source) => `${source.nodeId}\u0000${source.mountId}\u0000${source.path}`,
  );
  const after = sources.map((source) => `${source.nodeId}\u0000${source.mountId}\u0000${source.path}`);
  const sameSources = before.length === after.length && before.every((key, index) => key === after[index]);
  return { ...(name !== original.name ? { name } : {}), ...(sameSources ? {} : { sources }) };
}
