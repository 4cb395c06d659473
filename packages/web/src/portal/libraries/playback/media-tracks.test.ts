import type { PortalFile } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { audioTracks, buildSubtitleUrl, canSwitchAudio, subtitleTracks, trackName } from './media-tracks.js';

const file: PortalFile = {
  container: 'mkv',
  format: 'matroska,webm',
  size: 1,
  durationSeconds: 6,
  bitrate: null,
  streams: [
    { index: 0, type: 'video', codec: 'h264' },
    { index: 1, type: 'audio', codec: 'aac', language: 'eng', channels: 2, default: true },
    { index: 2, type: 'audio', codec: 'ac3', language: 'fre', channels: 6, title: 'VF' },
    { index: 3, type: 'subtitle', codec: 'subrip', language: 'fre', forced: true },
    { index: 4, type: 'subtitle', codec: 'hdmv_pgs_subtitle', language: 'eng' },
    { index: 5, type: 'subtitle', codec: 'ass', language: 'jpn', title: 'Signs' },
  ],
  subtitles: [
    { language: 'en', format: 'srt', forced: false, default: true },
    { language: null, format: 'sup', forced: false, default: false },
  ],
};
const target = { baseUrl: 'http://agent.example:19090/', itemId: 'abc', accessToken: 'tok en' };

describe('subtitleTracks', () => {
  it('numbers embedded streams by index and the files beside the video after them, as WebVTT urls', () => {
    const tracks = subtitleTracks(file, target);
    expect(tracks.map((track) => [track.index, track.source, track.codec, track.unavailable])).toEqual([
      [3, 'embedded', 'subrip', null],
      [4, 'embedded', 'hdmv_pgs_subtitle', 'image'],
      [5, 'embedded', 'ass', null],
      [6, 'external', 'srt', null],
      [7, 'external', 'sup', 'format'],
    ]);
    expect(tracks[0]).toMatchObject({ language: 'fre', forced: true, default: false });
    expect(tracks[3]).toMatchObject({ language: 'en', default: true });
    expect(tracks[0]!.url).toBe(
      'http://agent.example:19090/Videos/abc/abc/Subtitles/3/Stream.vtt?api_key=tok+en',
    );
    expect(tracks[1]!.url).toBeNull();
    expect(tracks[4]!.url).toBeNull();
  });

  it('is empty for a file without subtitles', () => {
    expect(subtitleTracks({ ...file, streams: file.streams.slice(0, 3), subtitles: [] }, target)).toEqual([]);
  });
});

describe('audioTracks', () => {
  it('lists the audio streams in file order with their position for HTMLMediaElement.audioTracks', () => {
    expect(audioTracks(file)).toEqual([
      { index: 1, position: 0, codec: 'aac', language: 'eng', title: null, channels: 2, default: true },
      { index: 2, position: 1, codec: 'ac3', language: 'fre', title: 'VF', channels: 6, default: false },
    ]);
    expect(trackName(audioTracks(file)[1]!)).toBe('VF FRE AC3');
  });
});

describe('canSwitchAudio', () => {
  it('is true only where the element has an audioTracks list with a choice', () => {
    expect(canSwitchAudio(null)).toBe(false);
    expect(canSwitchAudio({} as HTMLVideoElement)).toBe(false);
    expect(canSwitchAudio({ audioTracks: { length: 1 } } as unknown as HTMLVideoElement)).toBe(false);
    expect(canSwitchAudio({ audioTracks: { length: 2 } } as unknown as HTMLVideoElement)).toBe(true);
  });
});

describe('buildSubtitleUrl', () => {
  it("follows Emby's subtitle route", () => {
    expect(buildSubtitleUrl('http://a:1', 'i d', 9, 't')).toBe(
      'http://a:1/Videos/i%20d/i%20d/Subtitles/9/Stream.vtt?api_key=t',
    );
  });
});
