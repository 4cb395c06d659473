import { MASKED_SECRET, type StorageProviderKind } from '@svc/contracts';
import { badRequest } from '../../../platform/http/errors.js';
import { driveAProviderDefinition } from '../drives/drive-a.js';
import { driveBProviderDefinition } from '../drives/drive-b.js';
import { localProviderDefinition } from './local-provider.js';
import type { ProviderDefinition } from './provider.js';
import { webdavProviderDefinition } from './webdav-provider.js';

export type { StorageProvider, ProviderEntry, ByteRange, ProviderDefinition } from './provider.js';

/** Every provider kind this node can mount. A cloud drive adds its definition here. */
export const PROVIDERS: Record<StorageProviderKind, ProviderDefinition<unknown>> = {
  local: localProviderDefinition as unknown as ProviderDefinition<unknown>,
  webdav: webdavProviderDefinition as unknown as ProviderDefinition<unknown>,
  drive_a: driveAProviderDefinition as unknown as ProviderDefinition<unknown>,
  drive_b: driveBProviderDefinition as unknown as ProviderDefinition<unknown>,
};

export function providerDefinition(kind: string): ProviderDefinition<unknown> {
  const definition = (PROVIDERS as Record<string, ProviderDefinition<unknown> | undefined>)[kind];
  if (!definition) throw badRequest(`unknown provider ${kind}`);
  return definition;
}

/** The config with its secrets replaced by MASKED_SECRET (for answers and logs). */
export function maskConfig(kind: string, config: Record<string, unknown>): Record<string, unknown> {
  const masked = { ...config };
  for (const key of providerDefinition(kind).secrets) {
    if (masked[key] !== undefined && masked[key] !== '') masked[key] = MASKED_SECRET;
  }
  return masked;
}

/** A new config from an update: secrets sent back masked keep their stored value. */
export function mergeSecrets(
  kind: string,
  stored: Record<string, unknown>,
  next: Record<string, unknown>,
): Record<string, unknown> {
  const merged = { ...next };
  for (const key of providerDefinition(kind).secrets) {
    if (merged[key] === MASKED_SECRET) merged[key] = stored[key];
  }
  return merged;
}

export function isAdminOnly(kind: string, config: unknown): boolean {
  const { adminOnly } = providerDefinition(kind);
  return typeof adminOnly === 'function' ? adminOnly(config) : adminOnly;
}
