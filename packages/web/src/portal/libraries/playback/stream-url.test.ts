import { describe, expect, it } from 'vitest';
import { buildStreamUrl, compactProtocolId } from './stream-url.js';

describe('buildStreamUrl', () => {
  it('builds the static stream address with the access token as api_key', () => {
    const url = buildStreamUrl('http://host:19090/', 'abc123', 'svc_acc_tok-en_1');
    expect(url).toBe('http://host:19090/Videos/abc123/stream?static=true&api_key=svc_acc_tok-en_1');
  });

  it('encodes the id and the token', () => {
    const url = new URL(buildStreamUrl('https://p.example/emby', 'a/b', 'x&y=z'));
    expect(url.pathname).toBe('/emby/Videos/a%2Fb/stream');
    expect(url.searchParams.get('api_key')).toBe('x&y=z');
    expect(url.searchParams.get('static')).toBe('true');
  });
});

describe('compactProtocolId', () => {
  it('removes dashes and lower-cases', () => {
    expect(compactProtocolId('0F8FAD5B-D9CB-469F-A165-70867728950E')).toBe(
      '0f8fad5bd9cb469fa16570867728950e',
    );
  });
});
