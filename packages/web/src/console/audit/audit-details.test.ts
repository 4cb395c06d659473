import { describe, expect, it } from 'vitest';
import { readableDetails, readableValue } from './audit-details.js';

describe('audit details as readable fields', () => {
  it('lists the changed fields with before and after, and the other facts apart', () => {
    expect(
      readableDetails({
        before: { name: 'Films', 'config.root': '/srv/a' },
        after: { name: 'Movies', 'config.root': '/srv/a', note: 'new' },
        kind: 'copy',
        source: { mountId: 'm1', path: 'a.txt' },
      }),
    ).toEqual({
      hasChanges: true,
      changes: [
        { field: 'name', before: 'Films', after: 'Movies' },
        { field: 'config.root', before: '/srv/a', after: '/srv/a' },
        { field: 'note', before: null, after: 'new' },
      ],
      facts: [
        { field: 'kind', value: 'copy' },
        { field: 'source.mountId', value: 'm1' },
        { field: 'source.path', value: 'a.txt' },
      ],
    });
  });

  it('shows a creation and a deletion against nothing, and entries without changes as facts only', () => {
    expect(readableDetails({ before: null, after: { name: 'x' } }).changes).toEqual([
      { field: 'name', before: null, after: 'x' },
    ]);
    expect(readableDetails({ before: { name: 'x' }, after: null }).changes).toEqual([
      { field: 'name', before: 'x', after: null },
    ]);
    expect(readableDetails({ username: 'root', failures: 3 })).toEqual({
      hasChanges: false,
      changes: [],
      facts: [
        { field: 'username', value: 'root' },
        { field: 'failures', value: '3' },
      ],
    });
  });

  it('writes lists, header items and flags as words', () => {
    expect(readableValue(['a', 'b'])).toBe('a, b');
    expect(
      readableValue([
        { key: 'X-Secret', value: '[redacted]', sensitive: true },
        { key: 'Accept', value: 'text/plain', sensitive: false },
      ]),
    ).toBe('X-Secret: [redacted]\nAccept: text/plain');
    expect(readableValue(false)).toBe('false');
    expect(readableValue([])).toBe('[]');
    expect(readableValue(null)).toBeNull();
  });
});
