import { ALL_PERMISSIONS, type Account, type ManagedUser, type Permission } from '@svc/contracts';
import type { UserRow } from './accounts.repository.js';

/** Administrators hold every key; other users the delegable keys granted to them. */
export function effectivePermissions(user: Pick<UserRow, 'role' | 'permissions'>): Permission[] {
  return user.role === 'admin' ? [...ALL_PERMISSIONS] : [...user.permissions];
}

/** The account as its owner sees it (sign-in answer, GET /me). */
export function toAccount(user: UserRow): Account {
  return {
    id: user.id,
    username: user.username,
    displayName: user.display_name,
    role: user.role,
    disabled: user.disabled,
    permissions: effectivePermissions(user),
    webPlayback: user.web_playback,
    driveAPlayMode: user.drive_a_play_mode,
    createdAt: new Date(user.created_at).toISOString(),
    updatedAt: new Date(user.updated_at).toISOString(),
  };
}

/** The user as user management sees it: the account with the granted keys, not the effective ones. */
export function toManagedUser(user: UserRow): ManagedUser {
  return { ...toAccount(user), permissions: [...user.permissions] };
}
