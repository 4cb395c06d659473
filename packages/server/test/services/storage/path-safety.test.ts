import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mount } from '@svc/contracts';
import { AppError } from '../../../src/platform/http/errors.js';
import { isTempName, newTempName, parseMountPath } from '../../../src/services/storage/path-safety.js';
import { installBackends } from '../../support/install-backends.js';
import { q, snapshot, startStorage, type StorageHarness } from './storage-harness.js';

const LONG_NAME = 'x'.repeat(256);
const LONG_UTF8_NAME = 'é'.repeat(128); // 256 bytes
const LONG_PATH = `${'abcdefg/'.repeat(512)}z`; // 4097 bytes

/** Client paths every endpoint must refuse with 400 INVALID_PATH. */
const INVALID: [string, string][] = [
  ['dot-dot', '..'],
  ['dot-dot prefix', '../outside/secret.txt'],
  ['dot-dot in the middle', 'sub/../../x'],
  ['dot-dot at the end', 'sub/..'],
  ['single dot', '.'],
  ['dot segment', 'sub/./b.txt'],
  ['leading ./', './a.txt'],
  ['absolute', '/etc/passwd'],
  ['absolute root', '/'],
  ['UNC-like', '//server/share'],
  ['backslash traversal', 'sub\\..\\..\\x'],
  ['backslash', 'a\\b'],
  ['NUL byte', 'a.txt\0.png'],
  ['encoded dot-dot', '%2e%2e/secret'],
  ['encoded dot-dot upper case', '%2E%2E'],
  ['encoded slash', 'sub%2f..%2f..%2fx'],
  ['encoded dot-dot-slash', '..%2fx'],
  ['double-encoded dot-dot', '%252e%252e/x'],
  ['triple-encoded dot-dot', '%25252e%25252e'],
  ['double-encoded slash', 'sub%252f..%252f..'],
  ['encoded NUL', 'a%00b'],
  ['encoded backslash', '..%5c..%5cx'],
  ['overlong UTF-8 dot', '%c0%ae%c0%ae/x'],
  ['drive letter', 'C:/Windows/win.ini'],
  ['drive letter with backslash', 'c:\\x'],
  ['bare drive letter', 'C:'],
  ['empty segment', 'a//b'],
  ['name over 255 bytes', LONG_NAME],
  ['multi-byte name over 255 bytes', `sub/${LONG_UTF8_NAME}`],
  ['path over 4096 bytes', LONG_PATH],
  ['control character', 'sub/\u0001bad'],
  ['reserved temp name', '.svc-tmp-0123456789abcdef'],
];

describe('parseMountPath', () => {
  it.each(INVALID)('refuses %s', (_label, raw) => {
    expect(() => parseMountPath(raw)).toThrow(AppError);
    try {
      parseMountPath(raw);
    } catch (error) {
      expect((error as AppError).code).toBe('INVALID_PATH');
      expect((error as AppError).statusCode).toBe(400);
    }
  });

  it.each([
    ['', ''],
    ['Movies', 'Movies'],
    ['Movies/', 'Movies'],
    ['Movies/Heat (1995)/Heat (1995).mkv', 'Movies/Heat (1995)/Heat (1995).mkv'],
    ['a%20b.mkv', 'a%20b.mkv'],
    ['100% done.txt', '100% done.txt'],
    ['..hidden', '..hidden'],
    ['名前/ファイル.mkv', '名前/ファイル.mkv'],
    ['x'.repeat(255), 'x'.repeat(255)],
    ['ab:c', 'ab:c'],
  ])('accepts %j', (raw, expected) => {
    expect(parseMountPath(raw)).toBe(expected);
  });

  it('accepts one leading slash only where asked (internal API)', () => {
    expect(parseMountPath('/Movies', { allowLeadingSlash: true })).toBe('Movies');
    expect(parseMountPath('/', { allowLeadingSlash: true })).toBe('');
    expect(() => parseMountPath('//x', { allowLeadingSlash: true })).toThrow(AppError);
    expect(() => parseMountPath('/../x', { allowLeadingSlash: true })).toThrow(AppError);
    expect(() => parseMountPath('/Movies')).toThrow(AppError);
  });

  it('recognises its own temp names', () => {
    expect(isTempName(newTempName())).toBe(true);
    expect(isTempName('.svc-tmp')).toBe(false);
    expect(isTempName('movie.mkv')).toBe(false);
  });
});

describe.each(installBackends())('path safety through the storage API on $label', (backend) => {
  let storage: StorageHarness;
  let mount: Mount;
  let root: string;
  let outside: string;

  beforeAll(async () => {
    storage = await startStorage(backend.env);
    ({ mount, root } = await storage.localMount('paths'));
    outside = storage.tempDir('svc-outside-');
    writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    writeFileSync(path.join(root, 'a.txt'), 'alpha');
    mkdirSync(path.join(root, 'sub'));
    writeFileSync(path.join(root, 'sub', 'b.txt'), 'bravo');
    symlinkSync(outside, path.join(root, 'escape'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'escape-file'));
    symlinkSync(path.join(root, 'missing-target'), path.join(root, 'dangling'));
    symlinkSync(path.join(root, 'sub'), path.join(root, 'inner-link'));
  });

  afterAll(async () => {
    await storage?.stop();
    await backend.cleanup();
  });

  const id = () => mount.id;

  /** Every way a path reaches the node: query strings, JSON bodies, the internal API. */
  const calls: [string, (raw: string) => Promise<{ status: number; code: string }>][] = [
    ['browse', (raw) => call('GET', `/api/storage/mounts/${id()}/browse?path=${q(raw)}`)],
    ['stat', (raw) => call('GET', `/api/storage/mounts/${id()}/stat?path=${q(raw)}`)],
    ['download', (raw) => call('GET', `/api/storage/mounts/${id()}/download?path=${q(raw)}`)],
    ['mkdir', (raw) => call('POST', `/api/storage/mounts/${id()}/mkdir`, { path: raw, parents: true })],
    [
      'rename source',
      (raw) => call('POST', `/api/storage/mounts/${id()}/rename`, { path: raw, newName: 'x' }),
    ],
    ['delete', (raw) => call('POST', `/api/storage/mounts/${id()}/delete`, { path: raw, recursive: true })],
    [
      'copy target',
      (raw) => call('POST', `/api/storage/mounts/${id()}/copy`, { path: 'a.txt', targetPath: raw }),
    ],
    [
      'move source',
      (raw) => call('POST', `/api/storage/mounts/${id()}/move`, { path: raw, targetPath: 'moved' }),
    ],
    ['upload', (raw) => call('POST', `/api/storage/mounts/${id()}/uploads`, { path: raw, size: 1 })],
    ['internal walk', (raw) => call('GET', `/api/storage/internal/mounts/${id()}/walk?path=${q(raw)}`)],
    ['internal file', (raw) => call('GET', `/api/storage/internal/mounts/${id()}/file?path=${q(raw)}`)],
    ['internal probe', (raw) => call('POST', `/api/storage/internal/mounts/${id()}/probe`, { path: raw })],
  ];

  async function call(
    method: string,
    url: string,
    body?: unknown,
  ): Promise<{ status: number; code: string }> {
    const response = await storage.api(method, url, body === undefined ? {} : { body });
    const parsed = response.body.length > 0 ? response.json<{ error?: { code: string } }>() : {};
    return { status: response.status, code: parsed.error?.code ?? '' };
  }

  /** The internal API takes '/x' as 'x'; these two are valid there, not traversal. */
  const internalAllows = new Set(['/etc/passwd', '/']);

  it.each(INVALID)('refuses %s on every endpoint and touches nothing', async (_label, raw) => {
    const before = { inside: snapshot(root), outside: snapshot(outside) };
    for (const [name, send] of calls) {
      if (name.startsWith('internal') && internalAllows.has(raw)) continue;
      const { status, code } = await send(raw);
      expect(status, `${name} ${JSON.stringify(raw).slice(0, 80)}`).toBe(400);
      expect(code, `${name} ${JSON.stringify(raw).slice(0, 80)}`).toBe('INVALID_PATH');
    }
    expect(snapshot(root)).toEqual(before.inside);
    expect(snapshot(outside)).toEqual(before.outside);
  });

  it('refuses a rename whose new name climbs out of the folder', async () => {
    const before = snapshot(root);
    for (const newName of ['../x', '..', 'a/b', '.', '%2e%2e', 'C:', 'a\\b']) {
      const { status, code } = await call('POST', `/api/storage/mounts/${id()}/rename`, {
        path: 'a.txt',
        newName,
      });
      expect(status, newName).toBe(400);
      expect(code, newName).toBe('INVALID_PATH');
    }
    expect(snapshot(root)).toEqual(before);
  });

  it.each([
    ['a folder link pointing outside', 'escape/secret.txt'],
    ['the link itself', 'escape'],
    ['a file link pointing outside', 'escape-file'],
    ['a dangling link', 'dangling'],
    ['a new name below an outside link', 'escape/new-folder'],
  ])('refuses %s with 403 PATH_ESCAPES_MOUNT and touches nothing', async (_label, raw) => {
    const before = { inside: snapshot(root), outside: snapshot(outside) };
    const attempts = [
      call('GET', `/api/storage/mounts/${id()}/stat?path=${q(raw)}`),
      call('GET', `/api/storage/mounts/${id()}/download?path=${q(raw)}`),
      call('GET', `/api/storage/mounts/${id()}/browse?path=${q(raw)}`),
      call('POST', `/api/storage/mounts/${id()}/mkdir`, { path: `${raw}/made`, parents: true }),
      call('POST', `/api/storage/mounts/${id()}/delete`, { path: `${raw}/secret.txt`, recursive: true }),
      call('POST', `/api/storage/mounts/${id()}/uploads`, { path: `${raw}/upload.bin`, size: 3 }),
      call('GET', `/api/storage/internal/mounts/${id()}/file?path=${q(raw)}`),
      call('POST', `/api/storage/internal/mounts/${id()}/probe`, { path: raw }),
    ];
    for (const { status, code } of await Promise.all(attempts)) {
      expect(status).toBe(403);
      expect(code).toBe('PATH_ESCAPES_MOUNT');
    }
    expect(snapshot(root)).toEqual(before.inside);
    expect(snapshot(outside)).toEqual(before.outside);
  });

  it('follows links that stay inside the mount, and lists only those', async () => {
    const stat = await storage.api('GET', `/api/storage/mounts/${id()}/stat?path=${q('inner-link/b.txt')}`);
    expect(stat.status).toBe(200);
    const listing = await storage.api('GET', `/api/storage/mounts/${id()}/browse?path=`);
    const names = listing.json<{ entries: { name: string }[] }>().entries.map((entry) => entry.name);
    expect(names).toEqual(['inner-link', 'sub', 'a.txt']);
  });

  it('takes the media service path form on the internal API', async () => {
    const response = await storage.api('GET', `/api/storage/internal/mounts/${id()}/walk?path=${q('/sub')}`);
    expect(response.status).toBe(200);
    expect(response.body.toString()).toContain('"path":"sub/b.txt"');
  });
});
