import type { ProbeResult } from '@svc/contracts';

/**
 * ffprobe's JSON turned into the technical metadata the media service stores; shared by the storage node's
 * probe (scans) and the play-agent's background probe (metadata completion during playback).
 */

interface FfprobeStream {
  index?: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  channels?: number;
  tags?: Record<string, string>;
  disposition?: Record<string, number>;
}

interface FfprobeChapter {
  start_time?: string;
  tags?: Record<string, string>;
}

/** The part of `ffprobe -print_format json -show_format -show_streams -show_chapters` output that is read. */
export interface FfprobeOutput {
  format?: { format_name?: string; duration?: string; bit_rate?: string; size?: string };
  streams?: FfprobeStream[];
  chapters?: FfprobeChapter[];
}

function finiteNumber(value: string | number | undefined): number | null {
  if (value === undefined || value === '' || value === 'N/A') return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

function tag(tags: Record<string, string> | undefined, name: string): string | undefined {
  if (!tags) return undefined;
  const key = Object.keys(tags).find((candidate) => candidate.toLowerCase() === name);
  const value = key ? tags[key]?.trim() : undefined;
  return value ? value : undefined;
}

/** ffprobe's JSON turned into the probe result (attached pictures and data streams left out). */
export function probeResultOf(output: FfprobeOutput, fallbackSize: number): ProbeResult {
  const streams: ProbeResult['streams'] = [];
  for (const stream of output.streams ?? []) {
    const type = stream.codec_type;
    if (type !== 'video' && type !== 'audio' && type !== 'subtitle') continue;
    if (type === 'video' && stream.disposition?.attached_pic === 1) continue;
    const language = tag(stream.tags, 'language');
    const title = tag(stream.tags, 'title');
    streams.push({
      index: stream.index ?? streams.length,
      type,
      codec: stream.codec_name ?? 'unknown',
      ...(language && language !== 'und' ? { language } : {}),
      ...(type === 'video' && stream.width ? { width: stream.width } : {}),
      ...(type === 'video' && stream.height ? { height: stream.height } : {}),
      ...(type === 'audio' && stream.channels ? { channels: stream.channels } : {}),
      ...(title ? { title } : {}),
      default: stream.disposition?.default === 1,
      forced: stream.disposition?.forced === 1,
    });
  }
  const chapters: NonNullable<ProbeResult['chapters']> = [];
  for (const chapter of output.chapters ?? []) {
    const start = finiteNumber(chapter.start_time);
    if (start === null || start < 0) continue;
    const title = tag(chapter.tags, 'title');
    chapters.push({ startSeconds: start, ...(title ? { title } : {}) });
  }
  const format = output.format ?? {};
  return {
    container: format.format_name ?? 'unknown',
    durationSeconds: finiteNumber(format.duration),
    bitrate: finiteNumber(format.bit_rate),
    size: finiteNumber(format.size) ?? fallbackSize,
    streams,
    ...(chapters.length > 0 ? { chapters } : {}),
  };
}
