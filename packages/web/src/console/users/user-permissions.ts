import {
  DELEGABLE_PERMISSIONS,
  type Account,
  type DelegablePermission,
  type ManagedUser,
} from '@svc/contracts';

/** One delegable key as the permission checkboxes show it. */
export interface PermissionChoice {
  key: DelegablePermission;
  /** False when the acting account may not grant it (it does not hold the key and the user lacks it). */
  grantable: boolean;
}

type Actor = Pick<Account, 'id' | 'role' | 'permissions'>;
type Target = Pick<ManagedUser, 'id' | 'role'>;

/**
 * The delegable keys in menu order (the non-delegable `reports` and `license` are never offered).
 * An administrator grants any key; anyone else only keys it holds itself, while keys the user already
 * has stay editable (keeping or removing them is not a grant).
 */
export function permissionChoices(
  actor: Actor,
  already: readonly DelegablePermission[] = [],
): PermissionChoice[] {
  return DELEGABLE_PERMISSIONS.map((key) => ({
    key,
    grantable:
      actor.role === 'admin' ||
      (actor.permissions as readonly string[]).includes(key) ||
      already.includes(key),
  }));
}

/** Keys in menu order, each once, delegable ones only. */
export function normalizePermissions(keys: readonly string[]): DelegablePermission[] {
  const wanted = new Set(keys);
  return DELEGABLE_PERMISSIONS.filter((key) => wanted.has(key));
}

/** Whether two permission lists grant the same keys (order and repetition aside). */
export function samePermissions(a: readonly string[], b: readonly string[]): boolean {
  const left = normalizePermissions(a);
  const right = normalizePermissions(b);
  return left.length === right.length && left.every((key, index) => key === right[index]);
}

/** Only administrators change administrators (the server answers 403 otherwise). */
export function mayEditUser(actor: Actor, target: Target): boolean {
  return target.role !== 'admin' || actor.role === 'admin';
}

/** Administrators hold every key: their permissions are not edited. */
export function hasEditablePermissions(target: Target): boolean {
  return target.role !== 'admin';
}

/** Only administrators create administrators. */
export function mayCreateAdministrators(actor: Actor): boolean {
  return actor.role === 'admin';
}

export function isOwnAccount(actor: Actor, target: Target): boolean {
  return actor.id === target.id;
}
