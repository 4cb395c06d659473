import { randomUUID } from 'node:crypto';
import type {
  CreateMountRequest,
  ErrorCode,
  Identity,
  Mount,
  ProviderCapabilities,
  StorageProviderKind,
  UpdateMountRequest,
} from '@svc/contracts';
import { AppError, forbidden } from '../../platform/http/errors.js';
import type { Clock } from '../../platform/cache/index.js';
import type { Logger } from '../../platform/logger.js';
import type { SecretBox } from '../../platform/secret-box.js';
import { PROVIDERS, isAdminOnly, maskConfig, mergeSecrets, providerDefinition } from './providers/index.js';
import type { ProviderContext, StorageProvider } from './providers/provider.js';
import { accountMountFolder, type DriveAccountResolver } from './drives/account-mounts.js';
import { mapSecrets } from './drives/secret-fields.js';
import type { MountRow, MountsRepository } from './mounts/mounts.repository.js';
import { storageErrors } from './storage-errors.js';

/** A mount ready for file operations. */
export interface OpenMount {
  id: string;
  name: string;
  kind: StorageProviderKind;
  provider: StorageProvider;
  /** The drive account the mount names (docs/drives.md); absent for a mount that is its own account. */
  accountId?: string;
}

/** A stored mount config made complete: a drive mount's account settings joined in. */
interface EffectiveConfig {
  /** The provider config, parsed (secrets in clear: never answered). */
  config: unknown;
  accountId: string | null;
  /** Changes whenever the mount or its account changes (rebuilds the cached provider). */
  version: string;
}

/** Whether a mount is busy (running transfers, open uploads): such a mount cannot be deleted. */
export type MountUseCheck = (mountId: string) => Promise<boolean>;

/** Mount records and the provider instance of each. */
export class MountsService {
  private readonly open = new Map<string, { version: string; mount: OpenMount }>();
  private inUse: MountUseCheck = async () => false;

  constructor(
    private readonly repository: MountsRepository,
    private readonly providerContext: ProviderContext,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Seals the provider's secret fields in the database (docs/drives.md, "Credentials"). */
    private readonly secretBox: SecretBox,
    /** The drive accounts drive mounts name (docs/drives.md "Drive accounts"). */
    private readonly accounts: DriveAccountResolver,
  ) {}

  /** The config with each secret field passed through `transform` (seal before storing, open after reading). */
  private secrets(kind: string, config: Record<string, unknown>, transform: (value: string) => string) {
    return mapSecrets(providerDefinition(kind).secrets, config, transform);
  }

  /**
   * The complete provider config of a stored (opened) or requested mount config: a drive mount that names
   * an account gets the account's settings, with the mount's own folder; any other config is parsed as it is.
   */
  private async effective(
    kind: string,
    config: Record<string, unknown>,
    updatedAt: Date,
  ): Promise<EffectiveConfig> {
    const definition = providerDefinition(kind);
    const folder = accountMountFolder(kind, config);
    if (!folder) {
      return { config: definition.parse(config), accountId: null, version: String(updatedAt.getTime()) };
    }
    const account = await this.accounts.resolve(folder.accountId, kind);
    if (!account) throw storageErrors.accountMissing(folder.accountId);
    const { accountId, ...place } = folder;
    return {
      config: definition.parse({ ...account.config, ...place }),
      accountId,
      version: `${updatedAt.getTime()}:${account.updatedAt.getTime()}`,
    };
  }

  private sealed(kind: string, config: Record<string, unknown>): Record<string, unknown> {
    return this.secrets(kind, config, (value) => this.secretBox.seal(value));
  }

  private opened(kind: string, config: Record<string, unknown>): Record<string, unknown> {
    return this.secrets(kind, config, (value) => this.secretBox.open(value));
  }

  setUseCheck(check: MountUseCheck): void {
    this.inUse = check;
  }

  private async capabilities(row: MountRow): Promise<ProviderCapabilities> {
    return (await this.openRow(row)).provider.capabilities;
  }

  private async view(row: MountRow): Promise<Mount> {
    return {
      id: row.id,
      name: row.name,
      provider: row.provider as StorageProviderKind,
      config: maskConfig(row.provider, row.config),
      capabilities: await this.capabilities(row),
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }

  private async openRow(row: MountRow): Promise<OpenMount> {
    const effective = await this.effective(
      row.provider,
      this.opened(row.provider, row.config),
      row.updated_at,
    );
    const cached = this.open.get(row.id);
    if (cached && cached.version === effective.version) return cached.mount;
    if (cached) void cached.mount.provider.close().catch(() => undefined);
    const provider = providerDefinition(row.provider).create(effective.config, this.providerContext);
    const mount: OpenMount = {
      id: row.id,
      name: row.name,
      kind: row.provider as StorageProviderKind,
      provider,
      ...(effective.accountId ? { accountId: effective.accountId } : {}),
    };
    this.open.set(row.id, { version: effective.version, mount });
    return mount;
  }

  /** The mount with its provider; 404 when it does not exist. */
  async get(id: string): Promise<OpenMount> {
    const row = await this.repository.get(id);
    if (!row) throw storageErrors.mountNotFound();
    return this.openRow(row);
  }

  /** Every mount with its provider, by name. */
  async openAll(): Promise<OpenMount[]> {
    return Promise.all((await this.repository.list()).map((row) => this.openRow(row)));
  }

  async list(): Promise<Mount[]> {
    return Promise.all((await this.repository.list()).map((row) => this.view(row)));
  }

  async internalList(): Promise<{ id: string; name: string; provider: StorageProviderKind }[]> {
    return (await this.repository.list()).map((row) => ({
      id: row.id,
      name: row.name,
      provider: row.provider as StorageProviderKind,
    }));
  }

  async describe(id: string): Promise<Mount> {
    const row = await this.repository.get(id);
    if (!row) throw storageErrors.mountNotFound();
    return this.view(row);
  }

  providers() {
    return Object.values(PROVIDERS).map((definition) => ({
      kind: definition.kind as StorageProviderKind,
      adminOnly: definition.adminOnly === true,
      secrets: [...definition.secrets],
    }));
  }

  private requireRole(identity: Identity, kind: string, config: unknown): void {
    if (identity.role !== 'admin' && isAdminOnly(kind, config)) {
      throw forbidden(`only administrators may configure ${kind} mounts with these settings`);
    }
  }

  async create(identity: Identity, request: CreateMountRequest): Promise<Mount> {
    const definition = providerDefinition(request.provider);
    const stored = request.config as Record<string, unknown>;
    const { config } = await this.effective(request.provider, stored, new Date(0));
    this.requireRole(identity, request.provider, config);
    await definition.validate(config, this.providerContext);
    if (await this.repository.nameTaken(request.name)) {
      throw new AppError(409, 'ALREADY_EXISTS', 'a mount with this name already exists');
    }
    const now = new Date(this.clock.now());
    const row: MountRow = {
      id: randomUUID(),
      name: request.name,
      provider: request.provider,
      config: this.sealed(
        request.provider,
        accountMountFolder(request.provider, stored) ?? (config as Record<string, unknown>),
      ),
      created_at: now,
      updated_at: now,
    };
    await this.repository.insert(row);
    this.logger.info({ mountId: row.id, provider: row.provider, by: identity.username }, 'mount created');
    return this.view(row);
  }

  async update(identity: Identity, id: string, request: UpdateMountRequest): Promise<Mount> {
    const row = await this.repository.get(id);
    if (!row) throw storageErrors.mountNotFound();
    const definition = providerDefinition(row.provider);
    const current = this.opened(row.provider, row.config);
    this.requireRole(
      identity,
      row.provider,
      (await this.effective(row.provider, current, row.updated_at)).config,
    );
    let config = row.config;
    if (request.config !== undefined) {
      const next = mergeSecrets(row.provider, current, request.config);
      const parsed = (await this.effective(row.provider, next, row.updated_at)).config;
      this.requireRole(identity, row.provider, parsed);
      await definition.validate(parsed, this.providerContext);
      config = this.sealed(
        row.provider,
        accountMountFolder(row.provider, next) ?? (parsed as Record<string, unknown>),
      );
    }
    const name = request.name ?? row.name;
    if (name !== row.name && (await this.repository.nameTaken(name, id))) {
      throw new AppError(409, 'ALREADY_EXISTS', 'a mount with this name already exists');
    }
    // Strictly later than before, so the cached provider is rebuilt with the new config.
    const updatedAt = new Date(Math.max(this.clock.now(), row.updated_at.getTime() + 1));
    await this.repository.update(id, { name, config, updatedAt });
    this.logger.info({ mountId: id, by: identity.username }, 'mount updated');
    return this.view({ ...row, name, config, updated_at: updatedAt });
  }

  async delete(identity: Identity, id: string): Promise<void> {
    const row = await this.repository.get(id);
    if (!row) throw storageErrors.mountNotFound();
    // A mount whose account is gone can still be removed.
    const effective = await this.effective(
      row.provider,
      this.opened(row.provider, row.config),
      row.updated_at,
    ).catch(() => null);
    if (effective) this.requireRole(identity, row.provider, effective.config);
    if (await this.inUse(id)) throw storageErrors.mountInUse();
    await this.repository.delete(id);
    const cached = this.open.get(id);
    this.open.delete(id);
    await cached?.mount.provider.close().catch(() => undefined);
    this.logger.info({ mountId: id, by: identity.username }, 'mount deleted (files untouched)');
  }

  async check(id: string): Promise<{ ok: boolean; error?: { code: ErrorCode; message: string } }> {
    const mount = await this.get(id);
    try {
      await mount.provider.check(AbortSignal.timeout(30_000));
      return { ok: true };
    } catch (error) {
      if (error instanceof AppError)
        return { ok: false, error: { code: error.code, message: error.message } };
      return { ok: false, error: { code: 'STORAGE_UNAVAILABLE', message: (error as Error).message } };
    }
  }

  async close(): Promise<void> {
    const mounts = [...this.open.values()];
    this.open.clear();
    await Promise.allSettled(mounts.map((entry) => entry.mount.provider.close()));
  }
}
