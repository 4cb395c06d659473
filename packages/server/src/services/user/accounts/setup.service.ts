import type { Account, SetupAdminRequest, SetupStatusResponse } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { AppError } from '../../../platform/http/errors.js';
import type { AccountsRepository, UserRow } from './accounts.repository.js';
import { createAccount } from './account-creator.js';
import { auditRecord } from '../audit/audit-entry.js';
import type { PasswordHasher } from '../auth/password-hasher.js';
import { toAccount } from './user-mappers.js';
import type { Port, Transactor } from '../user-repositories.js';

/** First run: the first administrator, created once through the API or any time from the command line. */
export class SetupService {
  constructor(
    private readonly accounts: Pick<Port<AccountsRepository>, 'adminExists'>,
    private readonly transact: Transactor,
    private readonly hasher: Pick<PasswordHasher, 'hash'>,
    private readonly clock: Clock,
  ) {}

  async status(): Promise<SetupStatusResponse> {
    return { adminExists: await this.accounts.adminExists() };
  }

  /**
   * Only while no administrator exists (409 SETUP_DONE afterwards). Concurrent calls are serialised by a
   * transaction-scoped advisory lock, so exactly one of them creates the administrator.
   */
  async createFirstAdmin(request: SetupAdminRequest, clientIp: string): Promise<Account> {
    const row = await this.createAdmin(request, { requireNone: true, clientIp, via: 'setup' });
    return toAccount(row);
  }

  /** `svc admin create`: works also when administrators exist; refuses a taken name. */
  async createAdminFromCommandLine(request: SetupAdminRequest): Promise<UserRow> {
    return this.createAdmin(request, { requireNone: false, clientIp: null, via: 'command-line' });
  }

  private async createAdmin(
    request: SetupAdminRequest,
    options: { requireNone: boolean; clientIp: string | null; via: 'setup' | 'command-line' },
  ): Promise<UserRow> {
    if (options.requireNone && (await this.accounts.adminExists())) throw setupDone();
    const passwordHash = await this.hasher.hash(request.password);
    const now = new Date(this.clock.now());
    return this.transact(async (repositories) => {
      await repositories.accounts.lockAdministrators();
      if (options.requireNone && (await repositories.accounts.adminExists())) throw setupDone();
      const row = await createAccount(
        repositories,
        { username: request.username, passwordHash, displayName: request.displayName, role: 'admin' },
        now,
      );
      await repositories.audit.insert(
        auditRecord(
          {
            actor: options.via === 'setup' ? { userId: row.id, username: row.username } : null,
            systemActor: 'svc admin create',
            action: options.via === 'setup' ? 'setup.admin' : 'user.create',
            target: { type: 'user', id: row.id },
            details: { username: row.username, role: 'admin', via: options.via },
            clientIp: options.clientIp,
          },
          now,
        ),
      );
      return row;
    });
  }
}

const setupDone = () => new AppError(409, 'SETUP_DONE', 'an administrator already exists');
