import { describe, expect, it } from 'vitest';
import {
  hasEditablePermissions,
  isOwnAccount,
  mayCreateAdministrators,
  mayEditUser,
  normalizePermissions,
  permissionChoices,
  samePermissions,
} from './user-permissions.js';

const admin = { id: 'a', role: 'admin' as const, permissions: [] };
const delegate = { id: 'd', role: 'user' as const, permissions: ['user' as const, 'library' as const] };

describe('permissionChoices', () => {
  it('offers the eight delegable keys in menu order, never reports or license', () => {
    const keys = permissionChoices(admin).map((choice) => choice.key);
    expect(keys).toEqual(['dashboard', 'user', 'node', 'library', 'storage', 'cache', 'settings', 'audit']);
    expect(keys).not.toContain('reports');
    expect(keys).not.toContain('license');
  });

  it('lets an administrator grant every key', () => {
    expect(permissionChoices(admin).every((choice) => choice.grantable)).toBe(true);
  });

  it('lets anyone else grant only keys it holds, plus keys the user already has', () => {
    const grantable = permissionChoices(delegate, ['audit'])
      .filter((choice) => choice.grantable)
      .map((choice) => choice.key);
    expect(grantable).toEqual(['user', 'library', 'audit']);
  });
});

describe('permission lists', () => {
  it('normalizes to menu order without repeats or unknown keys', () => {
    expect(normalizePermissions(['audit', 'user', 'audit', 'reports', 'bogus'])).toEqual(['user', 'audit']);
  });

  it('compares lists as sets', () => {
    expect(samePermissions(['user', 'audit'], ['audit', 'user'])).toBe(true);
    expect(samePermissions(['user'], ['user', 'audit'])).toBe(false);
    expect(samePermissions(['user', 'node'], ['user', 'audit'])).toBe(false);
  });
});

describe('who may change whom', () => {
  const adminTarget = { id: 'x', role: 'admin' as const };
  const userTarget = { id: 'y', role: 'user' as const };

  it('keeps administrators to administrators', () => {
    expect(mayEditUser(admin, adminTarget)).toBe(true);
    expect(mayEditUser(delegate, adminTarget)).toBe(false);
    expect(mayEditUser(delegate, userTarget)).toBe(true);
    expect(mayCreateAdministrators(admin)).toBe(true);
    expect(mayCreateAdministrators(delegate)).toBe(false);
  });

  it('does not edit the permissions of administrators (they hold all)', () => {
    expect(hasEditablePermissions(adminTarget)).toBe(false);
    expect(hasEditablePermissions(userTarget)).toBe(true);
  });

  it('recognises the own account', () => {
    expect(isOwnAccount(admin, { id: 'a', role: 'admin' })).toBe(true);
    expect(isOwnAccount(admin, userTarget)).toBe(false);
  });
});
