// Film-like clips for the vfs bench (docs/vfs-cache.md, "Bench"): one short clip is encoded once at a
// film's bitrate, then repeated without re-encoding into the three containers the cache must handle.
import { execFile } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { MEDIA_FILES, type MediaKind } from '../packages/server/test/vfs-e2e/vfs-origin.js';

const run = promisify(execFile);

/** What the library knows of a file after its scan: the play-agent gets these facts at playback. */
export interface FilmFacts {
  file: string;
  size: number;
  mtime: number;
  durationSeconds: number;
  bitrate: number;
}

export interface FilmShape {
  /** Seconds of the clip encoded once. */
  clipSeconds: number;
  /** How many times the clip is played in a row in each file. */
  repeats: number;
  videoBitrate: string;
}

const ffmpeg = (args: string[]) =>
  run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args], { timeout: 600_000 });

/**
 * 1280×720 at 25 fps, H.264 with grain (so the encoder really spends the bitrate, as on film) and AAC,
 * a keyframe every 2 s; then MP4 with the moov at the head (faststart), MP4 with the moov at the end
 * (ffmpeg's default) and Matroska (ffmpeg writes the Cues at the end), each `repeats` clips long.
 */
export async function makeFilms(dir: string, shape: FilmShape): Promise<Map<MediaKind, FilmFacts>> {
  const clip = path.join(dir, 'clip.mkv');
  await ffmpeg(
    [
      ['-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=25'],
      ['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000'],
      ['-t', String(shape.clipSeconds), '-vf', 'noise=alls=12:allf=t'],
      ['-c:v', 'libx264', '-preset', 'ultrafast', '-b:v', shape.videoBitrate],
      ['-maxrate', shape.videoBitrate, '-bufsize', '24M', '-g', '50'],
      ['-c:a', 'aac', '-b:a', '128k', clip],
    ].flat(),
  );
  const films = new Map<MediaKind, FilmFacts>();
  for (const kind of Object.keys(MEDIA_FILES) as MediaKind[]) {
    const file = MEDIA_FILES[kind];
    const target = path.join(dir, file);
    const movflags = kind === 'mp4-faststart' ? ['-movflags', '+faststart'] : [];
    await ffmpeg(['-stream_loop', String(shape.repeats - 1), '-i', clip, '-c', 'copy', ...movflags, target]);
    films.set(kind, { file, ...(await libraryFacts(target)) });
  }
  rmSync(clip);
  return films;
}

async function libraryFacts(file: string): Promise<Omit<FilmFacts, 'file'>> {
  const { stdout } = await run(
    'ffprobe',
    [['-v', 'error', '-show_entries', 'format=duration,bit_rate', '-of', 'json', file]].flat(),
  );
  const format = (JSON.parse(stdout) as { format: { duration: string; bit_rate: string } }).format;
  const info = statSync(file);
  return {
    size: info.size,
    mtime: info.mtimeMs,
    durationSeconds: Number(format.duration),
    bitrate: Number(format.bit_rate),
  };
}
