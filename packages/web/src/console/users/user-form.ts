import type {
  AccountRole,
  CreateUserRequest,
  DelegablePermission,
  DriveAPlayMode,
  ManagedUser,
  UpdateUserRequest,
} from '@svc/contracts';
import { normalizePermissions } from './user-permissions.js';

/** The create form; field paths equal the request's, so the schema's problems land on the right input. */
export interface CreateUserValues {
  username: string;
  password: string;
  passwordRepeat: string;
  displayName: string;
  role: AccountRole;
  permissions: DelegablePermission[];
  webPlayback: boolean;
  driveAPlayMode: DriveAPlayMode;
}

/** A new user: no permissions, web playback on, DRIVE_A proxied (the server's defaults). */
export function emptyCreateValues(): CreateUserValues {
  return {
    username: '',
    password: '',
    passwordRepeat: '',
    displayName: '',
    role: 'user',
    permissions: [],
    webPlayback: true,
    driveAPlayMode: 'proxy',
  };
}

/**
 * POST /api/auth/admin/users: an empty display name is left out (the user name is used), the role only
 * when it is `admin`, and no permissions for an administrator (it holds them all).
 */
export function toCreateRequest(values: CreateUserValues): CreateUserRequest {
  const displayName = values.displayName.trim();
  const admin = values.role === 'admin';
  return {
    username: values.username.trim(),
    password: values.password,
    ...(displayName ? { displayName } : {}),
    ...(admin ? { role: 'admin' as const } : {}),
    ...(admin ? {} : { permissions: normalizePermissions(values.permissions) }),
    webPlayback: values.webPlayback,
    driveAPlayMode: values.driveAPlayMode,
  };
}

/** The repeated password differs from the first (checked in the browser only). */
export function passwordsDiffer(values: { password: string; passwordRepeat: string }): boolean {
  return values.passwordRepeat !== values.password;
}

/** The account fields of the edit form. */
export interface ProfileValues {
  displayName: string;
  webPlayback: boolean;
  driveAPlayMode: DriveAPlayMode;
}

export function profileValuesFrom(user: Pick<ManagedUser, 'displayName' | 'webPlayback' | 'driveAPlayMode'>) {
  return {
    displayName: user.displayName,
    webPlayback: user.webPlayback,
    driveAPlayMode: user.driveAPlayMode,
  } satisfies ProfileValues;
}

/** PATCH /api/auth/admin/users/:id with only what changed (empty: nothing to save). */
export function toProfileChanges(
  user: Pick<ManagedUser, 'displayName' | 'webPlayback' | 'driveAPlayMode'>,
  values: ProfileValues,
): UpdateUserRequest {
  const displayName = values.displayName.trim();
  return {
    ...(displayName !== user.displayName ? { displayName } : {}),
    ...(values.webPlayback !== user.webPlayback ? { webPlayback: values.webPlayback } : {}),
    ...(values.driveAPlayMode !== user.driveAPlayMode ? { driveAPlayMode: values.driveAPlayMode } : {}),
  };
}

export function hasChanges(changes: UpdateUserRequest): boolean {
  return Object.values(changes).some((value) => value !== undefined);
}
