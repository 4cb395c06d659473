import type { PlaybackRoute } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { choosePlayAgentBaseUrl, trimBaseUrl } from './play-agent-base.js';

const route = (overrides: Partial<PlaybackRoute>): PlaybackRoute => ({
  kind: 'node',
  id: 'node-1',
  name: 'Node',
  url: null,
  source: 'external-address',
  health: 'online',
  ...overrides,
});
const page = { protocol: 'https:', hostname: 'media.example.org' };

describe('choosePlayAgentBaseUrl', () => {
  it('takes the first online route that has a url', () => {
    const routes = [
      route({ id: 'a', url: 'http://offline:19090', health: 'offline' }),
      route({ id: 'b', url: null, health: 'online' }),
      route({ id: 'c', url: 'https://play.example.org/', health: 'online' }),
      route({ id: 'd', url: 'https://other.example.org', health: 'online' }),
    ];
    expect(choosePlayAgentBaseUrl(routes, page)).toBe('https://play.example.org');
  });

  it('prefers a pending route to an offline one when none is online', () => {
    const routes = [
      route({ url: 'http://down:19090', health: 'offline' }),
      route({ url: 'http://probing:19090', health: 'pending' }),
    ];
    expect(choosePlayAgentBaseUrl(routes, page)).toBe('http://probing:19090');
  });

  it('prefers https routes on an https page (an http video would be blocked as mixed content)', () => {
    const routes = [
      route({ url: 'http://lan:19090', health: 'online' }),
      route({ url: 'https://proxy.example.org', health: 'pending' }),
    ];
    expect(choosePlayAgentBaseUrl(routes, page)).toBe('https://proxy.example.org');
    expect(choosePlayAgentBaseUrl(routes, { protocol: 'http:', hostname: 'lan' })).toBe('http://lan:19090');
    expect(choosePlayAgentBaseUrl([routes[0]!], page)).toBe('http://lan:19090');
  });

  it('falls back to port 19090 of the page host when no route has a url', () => {
    expect(choosePlayAgentBaseUrl([route({ url: null })], page)).toBe('https://media.example.org:19090');
    expect(choosePlayAgentBaseUrl([], { protocol: 'http:', hostname: '192.168.1.5' })).toBe(
      'http://192.168.1.5:19090',
    );
  });
});

describe('trimBaseUrl', () => {
  it('drops trailing slashes only', () => {
    expect(trimBaseUrl('https://a.example/emby//')).toBe('https://a.example/emby');
    expect(trimBaseUrl('https://a.example')).toBe('https://a.example');
  });
});
