import { describe, expect, it } from 'vitest';
import { dirtyCardIds, shouldBlockNavigation, withCardDirty } from './unsaved-changes.js';

describe('unsaved changes of the settings cards', () => {
  it('records each card and keeps the same state when a report changes nothing', () => {
    const none = {};
    expect(withCardDirty(none, 'logo', false)).toBe(none);
    const logo = withCardDirty(none, 'logo', true);
    expect(logo).toEqual({ logo: true });
    expect(withCardDirty(logo, 'logo', true)).toBe(logo);
    const both = withCardDirty(logo, 'mcp', true);
    expect(dirtyCardIds(both).sort()).toEqual(['logo', 'mcp']);
    expect(dirtyCardIds(withCardDirty(both, 'logo', false))).toEqual(['mcp']);
    expect(dirtyCardIds({})).toEqual([]);
  });

  it('blocks leaving the page only while something is unsaved', () => {
    const here = { pathname: '/console/settings' };
    const users = { pathname: '/console/users' };
    expect(shouldBlockNavigation(true, here, users)).toBe(true);
    expect(shouldBlockNavigation(false, here, users)).toBe(false);
    // Same page (a query or hash change): the cards stay, nothing is lost.
    expect(shouldBlockNavigation(true, here, { pathname: '/console/settings' })).toBe(false);
  });
});
