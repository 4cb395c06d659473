import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { mediaFixtures, mp4TopLevelAtoms } from '../../support/media-fixtures.js';

const run = promisify(execFile);

async function probe(file: string) {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    file,
  ]);
  return JSON.parse(stdout) as {
    format: { format_name: string; duration: string };
    streams: { codec_type: string; tags?: { language?: string } }[];
  };
}

async function countFiles(dir: string): Promise<number> {
  let count = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    count += entry.isDirectory() ? await countFiles(path.join(dir, entry.name)) : 1;
  }
  return count;
}

describe('the generated media fixtures are what their manifest says', () => {
  it('has real videos with the stated containers, moov placement, durations and streams', async () => {
    const fixtures = await mediaFixtures();
    const videos = [
      ...fixtures.movies,
      ...fixtures.series.flatMap((series) => series.seasons.flatMap((season) => season.episodes)),
    ];
    for (const video of videos) {
      const file = path.join(fixtures.library, ...video.file.split('/'));
      const info = await probe(file);
      expect(Number(info.format.duration), video.file).toBeCloseTo(video.durationSeconds, 0);
      const audio = info.streams.filter((stream) => stream.codec_type === 'audio');
      expect(audio.map((stream) => stream.tags?.language)).toEqual(video.streams.audioLanguages);
      expect(info.streams.filter((stream) => stream.codec_type === 'video')).toHaveLength(
        video.streams.video,
      );
      if ('container' in video) expect(info.format.format_name.startsWith(video.container)).toBe(true);
      if ('moov' in video && video.moov) {
        const atoms = await mp4TopLevelAtoms(file);
        const moovBeforeData = atoms.indexOf('moov') < atoms.indexOf('mdat');
        expect(moovBeforeData, video.file).toBe(video.moov === 'head');
      }
    }
  });

  it('has the synthetic tree of 10,000 files', async () => {
    const { synthetic } = await mediaFixtures();
    expect(synthetic.files).toBe(10_000);
    expect(await countFiles(synthetic.root)).toBe(synthetic.files);
  });
});
