// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, render } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import type { PlaybackRoute } from '@svc/contracts';
import { registerMessages, setLanguage } from '../../i18n/i18n.js';
import { stubBrowserForMantine } from '../../testing/jsdom-mantine.js';
import { RouteCard } from './route-card.js';
import { routesMessages } from './routes-messages.js';

beforeAll(() => {
  stubBrowserForMantine();
  registerMessages('myRoutes', routesMessages);
  setLanguage('en');
});
afterEach(cleanup);

const builtIn: PlaybackRoute = {
  kind: 'node',
  id: 'node-local-play-agent',
  name: 'Built-in play-agent',
  url: 'http://192.168.1.20:19095',
  source: 'direct-address',
  health: 'online',
};

const card = (route: PlaybackRoute) =>
  render(
    <MantineProvider>
      <RouteCard route={route} />
    </MantineProvider>,
  );

describe('RouteCard', () => {
  it('shows a play-agent’s direct address with its real port, marked direct and replaceable', () => {
    const view = card(builtIn);
    expect(view.getByTestId('route-url').textContent).toBe('http://192.168.1.20:19095');
    expect(view.getByText('Host 192.168.1.20 · port 19095')).toBeTruthy();
    expect(view.getByTestId('route-direct').textContent).toBe('Direct');
    expect(view.getByTestId('route-direct-hint').textContent).toContain('external address');
    expect(view.queryByTestId('route-no-address')).toBeNull();
  });

  it('does not mark an external address set by the administrator as direct', () => {
    const view = card({ ...builtIn, url: 'https://play.example.org', source: 'external-address' });
    expect(view.getByTestId('route-url').textContent).toBe('https://play.example.org');
    expect(view.getByText('HTTPS')).toBeTruthy();
    expect(view.queryByTestId('route-direct')).toBeNull();
    expect(view.queryByTestId('route-direct-hint')).toBeNull();
  });

  it('says so when no address is known', () => {
    const view = card({ ...builtIn, url: null });
    expect(view.getByTestId('route-no-address')).toBeTruthy();
    expect(view.queryByTestId('route-direct')).toBeNull();
  });
});
