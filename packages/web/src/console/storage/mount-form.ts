import type { Mount, StorageProviderKind } from '@svc/contracts';

/** The mount form's fields: every provider's config fields, only the chosen provider's are sent. */
export interface MountFormValues {
  name: string;
  provider: StorageProviderKind;
  config: {
    root: string;
    url: string;
    username: string;
    password: string;
    allowPrivateNetwork: boolean;
    downloadThreads: number;
    timeoutSeconds: number;
    /** Drive mounts: the drive account they name, and DRIVE_B's root folder id (DRIVE_A uses `root`). */
    accountId: string;
    rootId: string;
  };
}

/** Provider kinds whose mounts name a drive account. */
export const isDriveKind = (kind: StorageProviderKind): kind is 'drive_a' | 'drive_b' =>
  kind === 'drive_a' || kind === 'drive_b';

export function emptyMountValues(provider: StorageProviderKind): MountFormValues {
  return {
    name: '',
    provider,
    config: {
      root: '',
      url: '',
      username: '',
      password: '',
      allowPrivateNetwork: false,
      downloadThreads: 1,
      timeoutSeconds: 30,
      accountId: '',
      rootId: '',
    },
  };
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');
const number = (value: unknown, fallback: number) => (typeof value === 'number' ? value : fallback);

/** A stored mount in the form (secrets stay masked: sending the mask back keeps them). */
export function mountToValues(mount: Mount): MountFormValues {
  const empty = emptyMountValues(mount.provider);
  const config = mount.config;
  return {
    name: mount.name,
    provider: mount.provider,
    config: {
      root: text(config.root),
      url: text(config.url),
      username: text(config.username),
      password: text(config.password),
      allowPrivateNetwork: config.allowPrivateNetwork === true,
      downloadThreads: number(config.downloadThreads, empty.config.downloadThreads),
      timeoutSeconds: number(config.timeoutSeconds, empty.config.timeoutSeconds),
      accountId: text(config.accountId),
      rootId: text(config.rootId),
    },
  };
}

/** The provider's config as the API takes it (empty optional texts left out). */
export function providerConfig(values: MountFormValues): Record<string, unknown> {
  const { config } = values;
  if (values.provider === 'local') return { root: config.root.trim() };
  if (values.provider === 'drive_a') return { accountId: config.accountId, root: config.root.trim() || '/' };
  if (values.provider === 'drive_b')
    return { accountId: config.accountId, rootId: config.rootId.trim() || 'root' };
  return {
    url: config.url.trim(),
    ...(config.username.trim() ? { username: config.username.trim() } : {}),
    ...(config.password ? { password: config.password } : {}),
    allowPrivateNetwork: config.allowPrivateNetwork,
    downloadThreads: config.downloadThreads,
    timeoutSeconds: config.timeoutSeconds,
  };
}

/** POST /api/storage/mounts body (checked with createMountRequestSchema). */
export function toCreateMountRequest(values: MountFormValues) {
  return { name: values.name.trim(), provider: values.provider, config: providerConfig(values) };
}

/** PATCH body: the name when it changed and always the complete config (the API replaces it whole). */
export function toUpdateMountRequest(values: MountFormValues, original: Mount) {
  const name = values.name.trim();
  return { ...(name !== original.name ? { name } : {}), config: providerConfig(values) };
}

/** Where a mount points, for the list: the local folder, the WebDAV address or the drive folder. */
export function mountLocation(mount: Mount): string {
  return text(mount.config.root) || text(mount.config.rootId) || text(mount.config.url);
}
