import { describe, expect, it } from 'vitest';
import { IMAGE_UPLOAD_MAX_BYTES, type LogoSource } from '@svc/contracts';
import { checkLogoFile, logoDraftFrom, logoRequestFrom, type LogoDraft } from './logo-draft.js';

const PNG_HEAD = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const stored: LogoSource = { kind: 'upload', contentType: 'image/png', size: 120, sha256: 'a'.repeat(64) };
const address: LogoSource = { kind: 'url', url: 'https://cdn.example.com/logo.png' };
const upload = {
  uploadId: '5b0e8f59-3e7c-4d0c-9a55-2f3c1f0e6a11',
  fileName: 'logo.png',
  previewUrl: 'blob:x',
};

describe('logo draft', () => {
  it('starts from the saved logo', () => {
    expect(logoDraftFrom(null)).toEqual({ mode: 'upload', upload: null, url: '' });
    expect(logoDraftFrom(address)).toEqual({ mode: 'url', upload: null, url: address.url });
    expect(logoDraftFrom(stored)).toEqual({ mode: 'upload', upload: null, url: '' });
  });

  it('saves a new upload, a changed address or the removal, and nothing else', () => {
    const draft = (change: Partial<LogoDraft>): LogoDraft => ({
      mode: 'upload',
      upload: null,
      url: '',
      ...change,
    });
    expect(logoRequestFrom(draft({}), stored)).toBeUndefined();
    expect(logoRequestFrom(draft({ upload }), stored)).toEqual({
      logo: { kind: 'upload', uploadId: upload.uploadId },
    });
    expect(logoRequestFrom(draft({ mode: 'url', url: ` ${address.url} ` }), address)).toBeUndefined();
    expect(logoRequestFrom(draft({ mode: 'url', url: 'https://x.example/l.png' }), address)).toEqual({
      logo: { kind: 'url', url: 'https://x.example/l.png' },
    });
    expect(logoRequestFrom(draft({ mode: 'url', url: address.url }), stored)).toEqual({
      logo: { kind: 'url', url: address.url },
    });
    expect(logoRequestFrom(draft({ mode: 'none' }), stored)).toEqual({ logo: null });
    expect(logoRequestFrom(draft({ mode: 'none' }), null)).toBeUndefined();
  });

  it('checks a file by size and content before sending it', () => {
    expect(checkLogoFile(PNG_HEAD.length, PNG_HEAD)).toEqual({ ok: true, contentType: 'image/png' });
    expect(checkLogoFile(0, new Uint8Array())).toEqual({ ok: false, problem: 'empty' });
    expect(checkLogoFile(IMAGE_UPLOAD_MAX_BYTES + 1, PNG_HEAD)).toEqual({ ok: false, problem: 'tooLarge' });
    expect(checkLogoFile(IMAGE_UPLOAD_MAX_BYTES, PNG_HEAD).ok).toBe(true);
    const html = new TextEncoder().encode('<!doctype html><svg onload="alert(1)">');
    expect(checkLogoFile(html.length, html)).toEqual({ ok: false, problem: 'notImage' });
  });
});
