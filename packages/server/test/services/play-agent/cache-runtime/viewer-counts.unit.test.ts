import { describe, expect, it } from 'vitest';
import { ViewerCounts } from '../../../../src/services/play-agent/cache-runtime/viewer-counts.js';

describe('viewer counts kept on the node', () => {
  it('asks the user service once per item while the count is fresh, sharing a question in flight', async () => {
    const asked: string[] = [];
    const counts = new ViewerCounts(async (itemId) => {
      asked.push(itemId);
      return itemId === 'a' ? 7 : 0;
    });
    expect(await Promise.all([counts.lookup('a'), counts.lookup('a')])).toEqual([7, 7]);
    expect(await counts.lookup('a')).toBe(7);
    expect(await counts.lookup('b')).toBe(0);
    expect(asked).toEqual(['a', 'b']);
  });

  it('answers unknown when the user service fails or is slow, and keeps a late answer', async () => {
    let release!: (count: number) => void;
    const slow = new ViewerCounts(
      (itemId) =>
        itemId === 'broken'
          ? Promise.reject(new Error('user service down'))
          : new Promise<number>((resolve) => (release = resolve)),
      20,
    );
    expect(await slow.lookup('broken')).toBeNull();
    expect(await slow.lookup('slow')).toBeNull();
    release(3);
    await Promise.resolve();
    expect(await slow.lookup('slow')).toBe(3);
  });
});
