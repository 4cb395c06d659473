// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderHook, waitFor } from '@testing-library/react';
import { needsAuthorisedFetch, useAuthObjectUrl } from './use-auth-object-url.js';

const credentials = { accessToken: 'access-1', adminToken: 'admin-1' };

describe('useAuthObjectUrl', () => {
  const created: string[] = [];
  const revoked: string[] = [];
  let fetchMock: ReturnType<typeof vi.fn>;

  beforeEach(() => {
    created.length = 0;
    revoked.length = 0;
    let next = 0;
    URL.createObjectURL = () => {
      const url = `blob:test/${++next}`;
      created.push(url);
      return url;
    };
    URL.revokeObjectURL = (url: string) => {
      revoked.push(url);
    };
    fetchMock = vi.fn((url: string) =>
      Promise.resolve(
        url.includes('missing') ? new Response('{}', { status: 404 }) : new Response('png', { status: 200 }),
      ),
    );
    vi.stubGlobal('fetch', fetchMock);
  });

  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('fetches service images with the console headers and shows an object URL', async () => {
    const { result, unmount } = renderHook(() =>
      useAuthObjectUrl('/api/media/items/1/images/poster', credentials),
    );
    expect(result.current).toEqual({ status: 'loading' });
    await waitFor(() => expect(result.current).toEqual({ status: 'ready', url: 'blob:test/1' }));
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api/media/items/1/images/poster');
    expect(init.headers).toEqual({ authorization: 'Bearer access-1', 'x-admin-token': 'admin-1' });
    unmount();
    expect(revoked).toEqual(['blob:test/1']);
  });

  it('revokes the old URL when the image changes', async () => {
    const { result, rerender } = renderHook(({ src }) => useAuthObjectUrl(src, credentials), {
      initialProps: { src: '/api/media/items/1/images/poster' },
    });
    await waitFor(() => expect(result.current.status).toBe('ready'));
    rerender({ src: '/api/media/items/2/images/poster' });
    expect(revoked).toEqual(['blob:test/1']);
    await waitFor(() => expect(result.current).toEqual({ status: 'ready', url: 'blob:test/2' }));
  });

  it('reports a missing image on 404 and without an address', async () => {
    const { result } = renderHook(() =>
      useAuthObjectUrl('/api/media/items/missing/images/poster', credentials),
    );
    await waitFor(() => expect(result.current).toEqual({ status: 'missing' }));
    expect(created).toEqual([]);
    const none = renderHook(() => useAuthObjectUrl(null, credentials));
    expect(none.result.current).toEqual({ status: 'missing' });
  });

  it('uses other addresses directly', () => {
    const { result } = renderHook(() =>
      useAuthObjectUrl('https://image.tmdb.org/t/p/original/x.jpg', credentials),
    );
    expect(result.current).toEqual({ status: 'ready', url: 'https://image.tmdb.org/t/p/original/x.jpg' });
    expect(fetchMock).not.toHaveBeenCalled();
    expect(needsAuthorisedFetch('/api/media/items/1/images/poster')).toBe(true);
    expect(needsAuthorisedFetch('https://x/api/y')).toBe(false);
  });
});
