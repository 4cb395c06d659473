import { createUserRequestSchema, updateUserRequestSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import {
  emptyCreateValues,
  hasChanges,
  passwordsDiffer,
  profileValuesFrom,
  toCreateRequest,
  toProfileChanges,
} from './user-form.js';

describe('toCreateRequest', () => {
  it('builds a valid request for a user with permissions in menu order', () => {
    const request = toCreateRequest({
      ...emptyCreateValues(),
      username: '  alice ',
      password: 'password-1',
      passwordRepeat: 'password-1',
      displayName: ' Alice ',
      permissions: ['audit', 'user'],
      driveAPlayMode: 'redirect',
    });
    expect(request).toEqual({
      username: 'alice',
      password: 'password-1',
      displayName: 'Alice',
      permissions: ['user', 'audit'],
      webPlayback: true,
      driveAPlayMode: 'redirect',
    });
    expect(createUserRequestSchema.safeParse(request).success).toBe(true);
  });

  it('leaves out an empty display name and sends no permissions for an administrator', () => {
    const request = toCreateRequest({
      ...emptyCreateValues(),
      username: 'root2',
      password: 'password-1',
      role: 'admin',
      permissions: ['user'],
    });
    expect(request).not.toHaveProperty('displayName');
    expect(request).not.toHaveProperty('permissions');
    expect(request.role).toBe('admin');
  });

  it('sends no role for an ordinary user', () => {
    expect(toCreateRequest({ ...emptyCreateValues(), username: 'bob', password: 'x' })).not.toHaveProperty(
      'role',
    );
  });

  it('lets the shared schema refuse a short password', () => {
    const result = createUserRequestSchema.safeParse(
      toCreateRequest({ ...emptyCreateValues(), username: 'bob', password: 'short' }),
    );
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['password']);
  });
});

describe('passwordsDiffer', () => {
  it('compares the two entries exactly', () => {
    expect(passwordsDiffer({ password: 'abc', passwordRepeat: 'abc' })).toBe(false);
    expect(passwordsDiffer({ password: 'abc', passwordRepeat: 'abd' })).toBe(true);
  });
});

describe('toProfileChanges', () => {
  const user = { displayName: 'Alice', webPlayback: true, driveAPlayMode: 'proxy' as const };

  it('sends nothing when nothing changed', () => {
    const changes = toProfileChanges(user, profileValuesFrom(user));
    expect(changes).toEqual({});
    expect(hasChanges(changes)).toBe(false);
    expect(updateUserRequestSchema.safeParse(changes).success).toBe(false);
  });

  it('sends only the changed fields', () => {
    const changes = toProfileChanges(user, {
      displayName: ' Alice ',
      webPlayback: false,
      driveAPlayMode: 'redirect',
    });
    expect(changes).toEqual({ webPlayback: false, driveAPlayMode: 'redirect' });
    expect(hasChanges(changes)).toBe(true);
    expect(updateUserRequestSchema.safeParse(changes).success).toBe(true);
  });

  it('sends a new display name trimmed', () => {
    expect(toProfileChanges(user, { ...profileValuesFrom(user), displayName: ' Al ' })).toEqual({
      displayName: 'Al',
    });
  });
});
