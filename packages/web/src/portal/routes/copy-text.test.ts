import { describe, expect, it, vi } from 'vitest';
import { copyText } from './copy-text.js';

describe('copyText', () => {
  it('uses the clipboard when there is one', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    const legacyCopy = vi.fn(() => true);
    await expect(copyText('http://a:19090', { clipboard: { writeText }, legacyCopy })).resolves.toBe(true);
    expect(writeText).toHaveBeenCalledWith('http://a:19090');
    expect(legacyCopy).not.toHaveBeenCalled();
  });

  it('falls back to the selection copy without a clipboard or when it refuses', async () => {
    const legacyCopy = vi.fn(() => true);
    await expect(copyText('x', { clipboard: undefined, legacyCopy })).resolves.toBe(true);
    const writeText = vi.fn(() => Promise.reject(new Error('NotAllowedError')));
    await expect(copyText('y', { clipboard: { writeText }, legacyCopy })).resolves.toBe(true);
    expect(legacyCopy).toHaveBeenCalledTimes(2);
  });

  it('reports failure when nothing worked', async () => {
    await expect(copyText('z', { legacyCopy: () => false })).resolves.toBe(false);
    await expect(
      copyText('z', {
        legacyCopy: () => {
          throw new Error('no document');
        },
      }),
    ).resolves.toBe(false);
  });
});
