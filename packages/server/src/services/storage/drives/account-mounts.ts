import { driveAAccountMountConfigSchema, driveBAccountMountConfigSchema } from '@svc/contracts';
import { parseProviderConfig } from '../providers/provider.js';
import type { ResolvedDriveAccount } from './drive-accounts.service.js';

/** Finds the drive account a drive mount names (DriveAccountsService). */
export interface DriveAccountResolver {
  resolve(id: string, kind: string): Promise<ResolvedDriveAccount | null>;
}

/** The mount's own part of a drive mount that names an account: the account and the folder of the drive. */
export type AccountMountFolder = { accountId: string } & Record<string, unknown>;

/**
 * The folder part of a drive mount config that names an account (`{ accountId, root }` for DRIVE_A,
 * `{ accountId, rootId }` for DRIVE_B), parsed; null for any other config (a mount that carries its
 * account settings itself). A malformed one is 400 naming the field.
 */
export function accountMountFolder(kind: string, config: Record<string, unknown>): AccountMountFolder | null {
  if (!('accountId' in config)) return null;
  if (kind === 'drive_a') return parseProviderConfig(driveAAccountMountConfigSchema, config);
  if (kind === 'drive_b') return parseProviderConfig(driveBAccountMountConfigSchema, config);
  return null;
}
