import { describe, expect, it } from 'vitest';
import { containerLabel, containerName } from '@svc/contracts';

describe('container names', () => {
  it('names ffprobe format lists by the file’s member of the family', () => {
    expect(containerName('matroska,webm', '/Movies/Heat (1995)/Heat.mkv')).toBe('mkv');
    expect(containerName('matroska,webm', 'clip.WebM')).toBe('webm');
    expect(containerName('mov,mp4,m4a,3gp,3g2,mj2', 'film.mp4')).toBe('mp4');
    expect(containerName('mov,mp4,m4a,3gp,3g2,mj2', 'film.m4v')).toBe('m4v');
    expect(containerName('mov,mp4,m4a,3gp,3g2,mj2', 'camera.MOV')).toBe('mov');
    expect(containerName('mpegts', 'recording.m2ts')).toBe('m2ts');
    expect(containerName('avi', 'old.divx')).toBe('avi');
  });

  it('takes the family’s own name when the extension is missing or belongs elsewhere', () => {
    expect(containerName('matroska,webm', '/movies/noext')).toBe('mkv');
    expect(containerName('matroska,webm', 'mislabelled.mp4')).toBe('mkv');
    expect(containerName('mov,mp4,m4a,3gp,3g2,mj2', null)).toBe('mp4');
    expect(containerName('mpegts')).toBe('ts');
    expect(containerName('mpeg', 'dvd.vob')).toBe('vob');
  });

  it('keeps an unknown format’s first name, else the extension, else nothing', () => {
    expect(containerName('nut', 'x.nut')).toBe('nut');
    expect(containerName('rm,rmvb', 'x.rmvb')).toBe('rm');
    expect(containerName(null, 'film.MKV')).toBe('mkv');
    expect(containerName('', 'noext')).toBeNull();
    expect(containerName(undefined, undefined)).toBeNull();
  });

  it('shows names as people write them', () => {
    expect(['mkv', 'mp4', 'avi', 'webm', 'ts'].map(containerLabel)).toEqual([
      'MKV',
      'MP4',
      'AVI',
      'WebM',
      'TS',
    ]);
  });
});
