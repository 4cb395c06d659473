import { describe, expect, it } from 'vitest';
import { createLibraryRequestSchema, updateLibraryRequestSchema, type Library } from '@svc/contracts';
import {
  addSources,
  emptyLibraryValues,
  libraryToValues,
  toCreateLibraryRequest,
  toUpdateLibraryRequest,
} from './library-form.js';

const MOUNT = '6f1d2c3b-1111-4222-8333-444455556666';

const library: Library = {
  id: 'l1',
  name: 'Movies',
  type: 'movies',
  sources: [{ id: 's1', nodeId: 'node-local-storage', mountId: MOUNT, path: '/Movies' }],
  counts: { movies: 0, series: 0, seasons: 0, episodes: 0 },
  lastScan: null,
  createdAt: '',
  updatedAt: '',
};

describe('library form', () => {
  it('builds a create request the API schema accepts, with media paths', () => {
    const values = emptyLibraryValues();
    values.name = ' Films ';
    values.sources = [
      { nodeId: 'node-local-storage', mountId: MOUNT, path: 'Movies/HD' },
      { nodeId: 'node-local-storage', mountId: MOUNT, path: '' },
    ];
    const request = toCreateLibraryRequest(values);
    expect(request).toEqual({
      name: 'Films',
      type: 'movies',
      sources: [
        { nodeId: 'node-local-storage', mountId: MOUNT, path: '/Movies/HD' },
        { nodeId: 'node-local-storage', mountId: MOUNT, path: '/' },
      ],
    });
    expect(createLibraryRequestSchema.safeParse(request).success).toBe(true);
  });

  it('needs at least one source', () => {
    const values = { ...emptyLibraryValues(), name: 'x' };
    const result = createLibraryRequestSchema.safeParse(toCreateLibraryRequest(values));
    expect(result.error?.issues[0]?.path).toEqual(['sources']);
  });

  it('does not add the same folder twice', () => {
    const first = addSources([], [{ nodeId: 'node-a1b', mountId: 'm', path: 'A' }]);
    const second = addSources(first, [
      { nodeId: 'node-a1b', mountId: 'm', path: '/A/' },
      { nodeId: 'node-a1b', mountId: 'm', path: 'B' },
    ]);
    expect(second.map((source) => source.path)).toEqual(['A', 'B']);
  });

  it('sends only what changed', () => {
    const values = libraryToValues(library);
    expect(values.sources[0]?.path).toBe('Movies');
    expect(toUpdateLibraryRequest(values, library)).toEqual({});
    expect(toUpdateLibraryRequest({ ...values, name: 'Films' }, library)).toEqual({ name: 'Films' });
    const changed = toUpdateLibraryRequest(
      {
        ...values,
        sources: [...values.sources, { nodeId: 'node-local-storage', mountId: MOUNT, path: 'Kids' }],
      },
      library,
    );
    expect(changed.sources?.map((source) => source.path)).toEqual(['/Movies', '/Kids']);
    expect(updateLibraryRequestSchema.safeParse(changed).success).toBe(true);
  });
});
