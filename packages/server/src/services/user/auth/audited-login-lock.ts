import type { Clock } from '../../../platform/cache/index.js';
import type { Logger } from '../../../platform/logger.js';
import { auditRecord } from '../audit/audit-entry.js';
import type { AuditRepository } from '../audit/audit.repository.js';
import { LOGIN_LOCK, type LoginLock } from './login-lock.js';
import type { Port } from '../user-repositories.js';

type Lock = Pick<LoginLock, 'lockedForMs' | 'recordFailure' | 'recordSuccess'>;

/**
 * The login lock of every sign-in that also writes each failure (`auth.login-failed`) and each lock it
 * sets (`auth.login-locked`) to the audit log, with the client address and the user name tried (never the
 * password). A record that cannot be written is logged at error level; the sign-in answer stays the same.
 */
export class AuditedLoginLock implements Lock {
  constructor(
    private readonly lock: Lock,
    private readonly deps: {
      audit: Pick<Port<AuditRepository>, 'insert'>;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  lockedForMs(ip: string, username: string): Promise<number> {
    return this.lock.lockedForMs(ip, username);
  }

  recordSuccess(ip: string, username: string): Promise<void> {
    return this.lock.recordSuccess(ip, username);
  }

  async recordFailure(ip: string, username: string): Promise<{ failures: number; locked: boolean }> {
    const result = await this.lock.recordFailure(ip, username);
    await this.write('auth.login-failed', ip, username, { failures: result.failures });
    if (result.locked) {
      await this.write('auth.login-locked', ip, username, {
        failures: result.failures,
        lockSeconds: LOGIN_LOCK.lockMs / 1000,
      });
    }
    return result;
  }

  private async write(
    action: 'auth.login-failed' | 'auth.login-locked',
    clientIp: string,
    username: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    const name = username.trim();
    const record = auditRecord(
      {
        actor: null,
        systemActor: name,
        action,
        target: { type: 'user', id: name },
        details: { username: name, ...details },
        clientIp,
      },
      new Date(this.deps.clock.now()),
    );
    try {
      await this.deps.audit.insert(record);
    } catch (error) {
      this.deps.logger.error(
        { audit: record, err: error instanceof Error ? error.message : String(error) },
        'audit record of a sign-in failure not written',
      );
    }
  }
}
