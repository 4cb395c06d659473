import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client.js';
import {
  parseRouteValue,
  routeLabel,
  routeOptionsFrom,
  routeValue,
  selectItems,
  unknownRoutesOf,
} from './route-options.js';

const nodes = [
  { nodeId: 'node-storage1', name: 'Storage', serviceType: 'svc-control-storage' as const, disabled: false },
  {
    nodeId: 'node-proxy-b',
    name: 'B proxy',
    serviceType: 'manual-play-agent-endpoint' as const,
    disabled: true,
  },
  { nodeId: 'node-agent-z', name: 'Zeta', serviceType: 'svc-play-agent' as const, disabled: false },
  { nodeId: 'node-agent-a', name: 'Alpha', serviceType: 'svc-play-agent' as const, disabled: false },
];

describe('routeOptionsFrom', () => {
  it('keeps play-agents (node) and manual addresses (endpoint), play-agents first, by name', () => {
    expect(routeOptionsFrom(nodes)).toEqual([
      { kind: 'node', id: 'node-agent-a', name: 'Alpha', disabled: false },
      { kind: 'node', id: 'node-agent-z', name: 'Zeta', disabled: false },
      { kind: 'endpoint', id: 'node-proxy-b', name: 'B proxy', disabled: true },
    ]);
  });
});

describe('route values', () => {
  it('round-trips kind and id', () => {
    expect(parseRouteValue(routeValue({ kind: 'endpoint', id: 'node-x:1' }))).toEqual({
      kind: 'endpoint',
      id: 'node-x:1',
    });
  });

  it('refuses values without a known kind or an id', () => {
    expect(parseRouteValue('storage:node-1')).toBeNull();
    expect(parseRouteValue('node:')).toBeNull();
    expect(parseRouteValue(null)).toBeNull();
  });

  it('labels known routes by name and unknown ones by id', () => {
    const options = routeOptionsFrom(nodes);
    expect(routeLabel({ kind: 'node', id: 'node-agent-a' }, options)).toBe('Alpha (node-agent-a)');
    expect(routeLabel({ kind: 'endpoint', id: 'node-agent-a' }, options)).toBe('node-agent-a');
  });
});

describe('selectItems', () => {
  it('lists one kind and keeps chosen ids the list does not know', () => {
    const options = routeOptionsFrom(nodes);
    expect(selectItems(options, 'node', ['node-agent-a', 'node-gone'])).toEqual([
      { value: 'node-agent-a', label: 'Alpha (node-agent-a)' },
      { value: 'node-agent-z', label: 'Zeta (node-agent-z)' },
      { value: 'node-gone', label: 'node-gone' },
    ]);
    expect(selectItems(options, 'endpoint').map((item) => item.value)).toEqual(['node-proxy-b']);
  });
});

describe('unknownRoutesOf', () => {
  it('reads the routes of an UNKNOWN_NODE answer', () => {
    const error = new ApiError(400, 'UNKNOWN_NODE', 'unknown', {
      unknown: [
        { kind: 'node', id: 'node-nope' },
        { kind: 'weird', id: 'x' },
      ],
    });
    expect(unknownRoutesOf(error)).toEqual([{ kind: 'node', id: 'node-nope' }]);
  });

  it('answers none for other errors', () => {
    expect(
      unknownRoutesOf(new ApiError(409, 'LAST_ADMIN', 'x', { unknown: [{ kind: 'node', id: 'a' }] })),
    ).toEqual([]);
    expect(unknownRoutesOf(new Error('x'))).toEqual([]);
  });
});
