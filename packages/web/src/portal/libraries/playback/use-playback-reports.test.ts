// @vitest-environment jsdom
import { renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { usePlaybackReports } from './use-playback-reports.js';

/** A stand-in for the video element: events and a position are all the hook uses. */
function fakeVideo(): HTMLVideoElement & { currentTime: number } {
  const target = new EventTarget() as HTMLVideoElement & { currentTime: number };
  target.currentTime = 0;
  return target;
}

const options = { baseUrl: 'http://media.lan:19090', itemId: 'ab'.repeat(16), accessToken: 'svc_acc_t' };

describe('usePlaybackReports', () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  const reported = () =>
    fetchMock.mock.calls.map(([url, init]) => {
      const body = JSON.parse((init as RequestInit).body as string) as {
        PositionTicks: number;
        PlaySessionId: string;
      };
      return [new URL(String(url)).pathname, String(body.PositionTicks), body.PlaySessionId];
    });

  beforeEach(() => {
    vi.useFakeTimers();
    fetchMock = vi.fn(() => Promise.resolve(new Response(null, { status: 204 })));
    vi.stubGlobal('fetch', fetchMock);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('reports start, progress every 10 s, pause and stop on unmount with one session id', () => {
    const video = fakeVideo();
    const { unmount } = renderHook(() => usePlaybackReports(video, options));
    expect(fetchMock).not.toHaveBeenCalled();

    video.dispatchEvent(new Event('playing'));
    video.currentTime = 10;
    vi.advanceTimersByTime(10_000);
    video.currentTime = 12.5;
    video.dispatchEvent(new Event('pause'));
    unmount();

    const calls = reported();
    expect(calls.map(([path]) => path)).toEqual([
      '/Sessions/Playing',
      '/Sessions/Playing/Progress',
      '/Sessions/Playing/Progress',
      '/Sessions/Playing/Stopped',
    ]);
    expect(calls.map(([, ticks]) => ticks)).toEqual(['0', '100000000', '125000000', '125000000']);
    const sessions = new Set(calls.map(([, , session]) => session));
    expect(sessions.size).toBe(1);
    expect([...sessions][0]).toMatch(/^[0-9a-f]{32}$/);
    const [, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(init).toMatchObject({ method: 'POST', keepalive: true });
    expect((init.headers as Record<string, string>)['X-Emby-Authorization']).toContain('Token=');
  });

  it('starts a new session after the video ended and is played again', () => {
    const video = fakeVideo();
    renderHook(() => usePlaybackReports(video, options));
    video.dispatchEvent(new Event('playing'));
    video.dispatchEvent(new Event('ended'));
    video.dispatchEvent(new Event('playing'));
    const calls = reported();
    expect(calls.map(([path]) => path)).toEqual([
      '/Sessions/Playing',
      '/Sessions/Playing/Stopped',
      '/Sessions/Playing',
    ]);
    expect(calls[0]?.[2]).toBe(calls[1]?.[2]);
    expect(calls[2]?.[2]).not.toBe(calls[1]?.[2]);
  });

  it('reports nothing when the video never played', () => {
    const video = fakeVideo();
    const { unmount } = renderHook(() => usePlaybackReports(video, options));
    vi.advanceTimersByTime(60_000);
    unmount();
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
