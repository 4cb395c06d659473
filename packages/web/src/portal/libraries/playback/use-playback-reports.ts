import { useEffect } from 'react';
import {
  browserName,
  randomHexId,
  stableDeviceId,
  WEB_CLIENT_NAME,
  WEB_CLIENT_VERSION,
} from './emby-authorization.js';
import { buildReportRequest } from './report-request.js';
import { ReportSchedule, type ScheduledReport } from './report-schedule.js';

/** How often the player's position is looked at; the schedule decides when that becomes a report. */
const TICK_MS = 1_000;

export interface PlaybackReportOptions {
  baseUrl: string;
  /** The item in the client protocol's form. */
  itemId: string;
  mediaSourceId?: string;
  accessToken: string;
}

/**
 * Reports a `<video>` element's playback to the play-agent as Emby clients do (start, progress every 10 s
 * and on pause, stop when it ends, the player closes or the page is left), so web playback shows in the
 * activity log. A report that fails is dropped: playback never depends on it.
 */
export function usePlaybackReports(video: HTMLVideoElement | null, options: PlaybackReportOptions): void {
  const { baseUrl, itemId, mediaSourceId, accessToken } = options;
  useEffect(() => {
    if (!video) return undefined;
    const schedule = new ReportSchedule();
    const identity = {
      client: WEB_CLIENT_NAME,
      device: browserName(navigator.userAgent),
      deviceId: stableDeviceId(localStorage),
      version: WEB_CLIENT_VERSION,
      token: accessToken,
    };
    let playSessionId = randomHexId();
    const send = (report: ScheduledReport | null) => {
      if (!report) return;
      if (report.kind === 'start') playSessionId = randomHexId();
      const { url, init } = buildReportRequest(report, {
        baseUrl,
        itemId,
        ...(mediaSourceId ? { mediaSourceId } : {}),
        playSessionId,
        identity,
      });
      void fetch(url, init).catch(() => undefined);
    };
    const position = () => video.currentTime;
    const onPlaying = () => send(schedule.play(Date.now(), position()));
    const onPause = () => send(schedule.pause(Date.now(), position()));
    const onStop = () => send(schedule.stop(Date.now(), position()));
    video.addEventListener('playing', onPlaying);
    video.addEventListener('pause', onPause);
    video.addEventListener('ended', onStop);
    window.addEventListener('pagehide', onStop);
    const timer = setInterval(() => send(schedule.tick(Date.now(), position())), TICK_MS);
    return () => {
      clearInterval(timer);
      video.removeEventListener('playing', onPlaying);
      video.removeEventListener('pause', onPause);
      video.removeEventListener('ended', onStop);
      window.removeEventListener('pagehide', onStop);
      onStop();
    };
  }, [video, baseUrl, itemId, mediaSourceId, accessToken]);
}
