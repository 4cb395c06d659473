import { randomUUID } from 'node:crypto';
import {
  driveAAccountConfigSchema,
  driveBAccountConfigSchema,
  type CreateDriveAccountRequest,
  type DriveAccount,
  type DriveKind,
  type Identity,
  type UpdateDriveAccountRequest,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { AppError, forbidden } from '../../../platform/http/errors.js';
import type { Logger } from '../../../platform/logger.js';
import type { SecretBox } from '../../../platform/secret-box.js';
import { parseProviderConfig, type ProviderContext } from '../providers/provider.js';
import { providerDefinition } from '../providers/index.js';
import type { DriveAccountRow, DriveAccountsRepository } from './drive-accounts.repository.js';
import { keepMaskedSecrets, mapSecrets, maskSecrets } from './secret-fields.js';

/** A drive account as a mount needs it: its kind, its config with the secrets opened, and its version. */
export interface ResolvedDriveAccount {
  id: string;
  kind: DriveKind;
  config: Record<string, unknown>;
  updatedAt: Date;
}

const ACCOUNT_SCHEMAS = { drive_a: driveAAccountConfigSchema, drive_b: driveBAccountConfigSchema };

export const driveAccountErrors = {
  notFound: () => new AppError(404, 'NOT_FOUND', 'drive account not found'),
  nameTaken: () => new AppError(409, 'ALREADY_EXISTS', 'a drive account with this name already exists'),
  inUse: (mounts: number) =>
    new AppError(409, 'DRIVE_ACCOUNT_IN_USE', `${mounts} mount(s) use this drive account; remove them first`),
};

/**
 * Drive accounts (docs/drives.md "Drive accounts"): a drive's address, credentials and User-Agent, named
 * by the drive mounts that use it. Secrets are sealed at rest and answered masked, never in clear.
 */
export class DriveAccountsService {
  constructor(
    private readonly repository: DriveAccountsRepository,
    private readonly providerContext: ProviderContext,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly secretBox: SecretBox,
  ) {}

  private secretsOf(kind: string): readonly string[] {
    return providerDefinition(kind).secrets;
  }

  private view(row: DriveAccountRow, mountCount: number): DriveAccount {
    return {
      id: row.id,
      name: row.name,
      kind: row.kind,
      config: maskSecrets(this.secretsOf(row.kind), row.config),
      mountCount,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }

  /** Parses an account config, checks the caller may set it and that its address is allowed. */
  private async accepted(
    identity: Identity,
    kind: DriveKind,
    config: unknown,
  ): Promise<Record<string, unknown>> {
    const parsed = parseProviderConfig(ACCOUNT_SCHEMAS[kind], config) as Record<string, unknown>;
    const definition = providerDefinition(kind);
    // The account with a default root is a complete provider config: the drive's own checks apply.
    const complete = definition.parse(parsed);
    if (identity.role !== 'admin' && parsed.allowPrivateNetwork === true) {
      throw forbidden('only administrators may let a drive account reach private addresses');
    }
    await definition.validate(complete, this.providerContext);
    return parsed;
  }

  private seal(kind: string, config: Record<string, unknown>) {
    return mapSecrets(this.secretsOf(kind), config, (value) => this.secretBox.seal(value));
  }

  private open(kind: string, config: Record<string, unknown>) {
    return mapSecrets(this.secretsOf(kind), config, (value) => this.secretBox.open(value));
  }

  async list(): Promise<DriveAccount[]> {
    const [rows, counts] = await Promise.all([this.repository.list(), this.repository.mountCounts()]);
    return rows.map((row) => this.view(row, counts.get(row.id) ?? 0));
  }

  private async row(id: string): Promise<DriveAccountRow> {
    const row = await this.repository.get(id);
    if (!row) throw driveAccountErrors.notFound();
    return row;
  }

  async describe(id: string): Promise<DriveAccount> {
    const row = await this.row(id);
    return this.view(row, (await this.repository.mountCounts()).get(id) ?? 0);
  }

  /** The account a drive mount names, secrets opened; null when there is none (or of another kind). */
  async resolve(id: string, kind: string): Promise<ResolvedDriveAccount | null> {
    const row = await this.repository.get(id);
    if (!row || row.kind !== kind) return null;
    return { id: row.id, kind: row.kind, config: this.open(row.kind, row.config), updatedAt: row.updated_at };
  }

  async create(identity: Identity, request: CreateDriveAccountRequest): Promise<DriveAccount> {
    const config = await this.accepted(identity, request.kind, request.config);
    if (await this.repository.nameTaken(request.name)) throw driveAccountErrors.nameTaken();
    const now = new Date(this.clock.now());
    const row: DriveAccountRow = {
      id: randomUUID(),
      name: request.name,
      kind: request.kind,
      config: this.seal(request.kind, config),
      created_at: now,
      updated_at: now,
    };
    await this.repository.insert(row);
    this.logger.info({ accountId: row.id, kind: row.kind, by: identity.username }, 'drive account created');
    return this.view(row, 0);
  }

  async update(identity: Identity, id: string, request: UpdateDriveAccountRequest): Promise<DriveAccount> {
    const row = await this.row(id);
    if (identity.role !== 'admin' && row.config.allowPrivateNetwork === true) {
      throw forbidden('only administrators may change a drive account that reaches private addresses');
    }
    let config = row.config;
    if (request.config !== undefined) {
      const next = keepMaskedSecrets(
        this.secretsOf(row.kind),
        this.open(row.kind, row.config),
        request.config,
      );
      config = this.seal(row.kind, await this.accepted(identity, row.kind, next));
    }
    const name = request.name ?? row.name;
    if (name !== row.name && (await this.repository.nameTaken(name, id)))
      throw driveAccountErrors.nameTaken();
    // Strictly later than before: the mounts that use the account rebuild their drive with the new config.
    const updatedAt = new Date(Math.max(this.clock.now(), row.updated_at.getTime() + 1));
    await this.repository.update(id, { name, config, updatedAt });
    this.logger.info({ accountId: id, by: identity.username }, 'drive account updated');
    return this.view(
      { ...row, name, config, updated_at: updatedAt },
      (await this.repository.mountCounts()).get(id) ?? 0,
    );
  }

  async delete(identity: Identity, id: string): Promise<void> {
    const row = await this.row(id);
    if (identity.role !== 'admin' && row.config.allowPrivateNetwork === true) {
      throw forbidden('only administrators may delete a drive account that reaches private addresses');
    }
    const mounts = (await this.repository.mountCounts()).get(id) ?? 0;
    if (mounts > 0) throw driveAccountErrors.inUse(mounts);
    await this.repository.delete(id);
    this.logger.info({ accountId: id, by: identity.username }, 'drive account deleted');
  }
}
