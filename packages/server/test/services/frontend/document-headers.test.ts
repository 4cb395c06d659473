import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { documentHeaders, inlineScriptHashes } from '../../../src/services/frontend/document-headers.js';

const sha = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

describe('document headers of the web app', () => {
  it('hashes each inline script body exactly, and skips external and empty scripts', () => {
    const inline = "\n      try { document.documentElement.dataset.x = '1'; } catch (e) {}\n    ";
    const html = `<html><head><script>${inline}</script><script type="module" src="/assets/index.js"></script><script> </script></head></html>`;
    expect(inlineScriptHashes(html)).toEqual([sha(inline)]);
  });

  it('allows only this origin and the hashed inline scripts to run, and forbids framing', () => {
    const headers = documentHeaders('<script>boot()</script>');
    const policy = headers['content-security-policy']!;
    const directive = (name: string) => policy.split('; ').find((part) => part.startsWith(`${name} `));
    expect(directive('script-src')).toBe(`script-src 'self' ${sha('boot()')}`);
    expect(directive('frame-ancestors')).toBe("frame-ancestors 'none'");
    expect(directive('object-src')).toBe("object-src 'none'");
    expect(directive('script-src')).not.toContain('unsafe-inline');
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['x-content-type-options']).toBe('nosniff');
  });

  it('the built index.html has its inline scripts covered', async () => {
    const { readFile } = await import('node:fs/promises');
    const html = await readFile(new URL('../../../../web/dist/index.html', import.meta.url), 'utf8');
    const policy = documentHeaders(html)['content-security-policy']!;
    for (const hash of inlineScriptHashes(html)) expect(policy).toContain(hash);
    expect(html).toMatch(/<script type="module"[^>]*src="\/assets\//);
  });
});
