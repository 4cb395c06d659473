import { describe, expect, it } from 'vitest';
import {
  baseName,
  breadcrumbs,
  fromMediaPath,
  isPlainName,
  isSameOrInside,
  joinPath,
  normaliseMountPath,
  parentPath,
  toMediaPath,
} from './mount-path.js';

describe('mount paths', () => {
  it('normalises typed paths to the API form', () => {
    expect(normaliseMountPath('')).toBe('');
    expect(normaliseMountPath('/')).toBe('');
    expect(normaliseMountPath(' /Movies//Action/ ')).toBe('Movies/Action');
  });

  it('joins a folder and a name', () => {
    expect(joinPath('', 'a.mkv')).toBe('a.mkv');
    expect(joinPath('Movies', 'a.mkv')).toBe('Movies/a.mkv');
    expect(joinPath('Movies/', '/a.mkv')).toBe('Movies/a.mkv');
    expect(joinPath('Movies', '')).toBe('Movies');
  });

  it('finds the parent and the name', () => {
    expect(parentPath('')).toBe('');
    expect(parentPath('a')).toBe('');
    expect(parentPath('a/b/c')).toBe('a/b');
    expect(baseName('a/b/c.txt')).toBe('c.txt');
    expect(baseName('')).toBe('');
  });

  it('builds breadcrumbs from the root down', () => {
    expect(breadcrumbs('')).toEqual([{ name: '', path: '' }]);
    expect(breadcrumbs('Movies/Action')).toEqual([
      { name: '', path: '' },
      { name: 'Movies', path: 'Movies' },
      { name: 'Action', path: 'Movies/Action' },
    ]);
  });

  it('tells whether a path lies inside another', () => {
    expect(isSameOrInside('Movies', 'Movies')).toBe(true);
    expect(isSameOrInside('Movies/a', 'Movies')).toBe(true);
    expect(isSameOrInside('Movies2', 'Movies')).toBe(false);
    expect(isSameOrInside('anything', '')).toBe(true);
  });

  it('converts to and from the media service form', () => {
    expect(toMediaPath('')).toBe('/');
    expect(toMediaPath('Movies/')).toBe('/Movies');
    expect(fromMediaPath('/Movies')).toBe('Movies');
    expect(fromMediaPath('/')).toBe('');
  });

  it('accepts only plain names', () => {
    expect(isPlainName('Season 1')).toBe(true);
    expect(isPlainName('a/b')).toBe(false);
    expect(isPlainName('..')).toBe(false);
    expect(isPlainName('  ')).toBe(false);
    expect(isPlainName('a\\b')).toBe(false);
  });
});
