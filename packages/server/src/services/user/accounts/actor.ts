import type { DelegablePermission, Identity } from '@svc/contracts';
import { AppError, forbidden, unauthorized } from '../../../platform/http/errors.js';
import type { AccountsRepository, UserRow } from './accounts.repository.js';
import type { Port } from '../user-repositories.js';

/** Who performs an administrative change, and from where (for access checks and the audit log). */
export interface Actor {
  identity: Identity;
  clientIp: string;
}

/** The acting account as the database has it now (the gateway's view may be a few seconds old). */
export async function loadActor(
  accounts: Pick<Port<AccountsRepository>, 'findById'>,
  actor: Actor,
): Promise<UserRow> {
  const row = await accounts.findById(actor.identity.userId);
  if (!row || row.disabled) throw unauthorized('this account can no longer sign in');
  return row;
}

/** Only administrators change administrators. */
export function assertMayEdit(actor: UserRow, target: UserRow): void {
  if (target.role === 'admin' && actor.role !== 'admin') {
    throw forbidden('only administrators can change an administrator');
  }
}

/** A non-administrator may grant only keys it holds itself (keys the target already has are not grants). */
export function assertMayGrant(
  actor: UserRow,
  wanted: readonly DelegablePermission[],
  already: readonly DelegablePermission[] = [],
): void {
  if (actor.role === 'admin') return;
  const missing = wanted.filter((key) => !already.includes(key) && !actor.permissions.includes(key));
  if (missing.length > 0) {
    throw new AppError(
      403,
      'FORBIDDEN',
      `you cannot grant permissions you do not hold: ${missing.join(', ')}`,
      {
        permissions: missing,
      },
    );
  }
}
