import type { KeyObject } from 'node:crypto';
import type {
  AuditAction,
  Edition,
  Identity,
  LicenseStatusResponse,
  RecordAuditRequest,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { AppError } from '../../../platform/http/errors.js';
import type { Logger } from '../../../platform/logger.js';
import type { DeploymentRepository } from '../deployment/deployment.repository.js';
import type { AuditRecorder } from './audit-recorder.js';
import type { LicensesRepository, StoredLicense } from './licenses.repository.js';
import { LeaseError, leaseState, verifyCode, verifyLease, type LeasePayload } from './lease.js';

export type LicenseState = 'NONE' | 'ACTIVE' | 'GRACE' | 'EXPIRED' | 'INVALID';

/** What node management needs to know (docs/licences.md); only ACTIVE and GRACE allow node creation. */
export interface LicenseFacts {
  state: LicenseState;
  edition: 'STANDALONE' | 'DISTRIBUTED';
  maxStorageNodes: number;
  maxPlayAgentNodes: number;
  validUntil: string | null;
  graceUntil: string | null;
}

/** Why a stored licence reads INVALID. */
export type InvalidReason = 'no-public-key' | 'signature' | 'payload' | 'install-mismatch' | 'not-yet-valid';

export interface LicenseServiceDeps {
  licenses: LicensesRepository;
  deployment: DeploymentRepository;
  /** The publisher's public key (SVC_LICENSE_PUBLIC_KEY); null when the deployment has none. */
  publicKey: KeyObject | null;
  clock: Clock;
  audit: AuditRecorder;
  logger: Logger;
}

/** Who made a change, for the audit record. */
export type LicenseActor = Pick<Identity, 'userId' | 'username'> | null;

interface Evaluation {
  state: LicenseState;
  stored: StoredLicense | undefined;
  payload: LeasePayload | undefined;
  reason: InvalidReason | null;
}

const licenseInvalid = (error: LeaseError) =>
  new AppError(400, 'LICENSE_INVALID', error.message, { reason: error.reason });

/**
 * Licence facts of this install. Nothing is cached: every read takes the stored lease, verifies it again
 * against the configured publisher key and derives the status from the service clock, so a key change
 * or the passing of time shows at the next read.
 */
export class LicenseService {
  constructor(private readonly deps: LicenseServiceDeps) {}

  /**
   * Re-reads and re-verifies the stored licence (done before every node creation). There is no online
   * licence authority: the signed lease is the authority, and quotas are counted against it locally.
   */
  async refresh(): Promise<LicenseFacts> {
    const [evaluation, edition] = await Promise.all([this.evaluate(), this.deps.deployment.edition()]);
    const quotas = trusted(evaluation);
    return {
      state: evaluation.state,
      edition,
      maxStorageNodes: quotas?.maxStorageNodes ?? 0,
      maxPlayAgentNodes: quotas?.maxPlayAgentNodes ?? 0,
      validUntil: quotas?.validUntil ?? null,
      graceUntil: quotas?.graceUntil ?? null,
    };
  }

  /** The public status JSON (also before any activation). */
  async status(): Promise<LicenseStatusResponse> {
    const [evaluation, edition, installId] = await Promise.all([
      this.evaluate(),
      this.deps.deployment.edition(),
      this.deps.deployment.installId(),
    ]);
    const payload = trusted(evaluation);
    return {
      status: evaluation.state,
      activated: evaluation.stored !== undefined,
      edition,
      maxStorageNodes: payload?.maxStorageNodes ?? 0,
      maxPlayAgentNodes: payload?.maxPlayAgentNodes ?? 0,
      validUntil: payload?.validUntil ?? null,
      graceUntil: payload?.graceUntil ?? null,
      licenseId: evaluation.stored?.id ?? null,
      validFrom: payload?.validFrom ?? null,
      issuedAt: payload?.issuedAt ?? null,
      activatedAt: evaluation.stored?.activatedAt.toISOString() ?? null,
      installId,
      publicKeyConfigured: this.deps.publicKey !== null,
      reason: evaluation.reason,
    };
  }

  /**
   * Activates a one-time licence code: verifies it, refuses a code used on this install before, and
   * stores its lease as the current licence (a known licence id gets the new lease: a renewal).
   */
  async activate(code: string, actor: LicenseActor, clientIp: string | null): Promise<LicenseStatusResponse> {
    const publicKey = this.requireKey();
    let verified;
    try {
      verified = verifyCode(code, publicKey);
    } catch (error) {
      if (error instanceof LeaseError) throw licenseInvalid(error);
      throw error;
    }
    const { codeId, lease, payload } = verified;
    if (payload.kind !== 'lease') {
      throw new AppError(400, 'LICENSE_INVALID', 'an edition-upgrade lease cannot be activated with a code', {
        reason: 'kind',
      });
    }
    const codeUsed = () =>
      new AppError(409, 'LICENSE_CODE_USED', 'this licence code has been used on this install already', {
        codeId,
      });
    if (await this.deps.licenses.codeUsed(codeId)) throw codeUsed();
    const now = new Date(this.deps.clock.now());
    await this.checkUsable(payload, now);

    // Inside the transaction only its own repositories: the bundled database has one session.
    await this.deps.licenses.transaction(async ({ licenses, deployment }) => {
      const edition = await deployment.lockEdition();
      if (payload.edition !== edition) {
        throw new AppError(
          409,
          'LICENSE_EDITION_MISMATCH',
          `the licence is for the ${payload.edition} edition but this install is ${edition}` +
            (edition === 'STANDALONE' ? '; a move to DISTRIBUTED is an edition upgrade' : ''),
          { licenseEdition: payload.edition, installEdition: edition },
        );
      }
      // The licence row first: the code refers to it.
      const before = await licenses.find(payload.licenseId, { lock: true });
      await licenses.activate(payload.licenseId, lease, payload, now);
      // Taken by a concurrent activation since the check above.
      if (!(await licenses.useCode(codeId, payload.licenseId, now))) throw codeUsed();
      await licenses.queueAudit(
        auditEntry(actor, clientIp, 'license.activate', payload.licenseId, {
          codeId,
          renewal: before !== undefined,
          ...leaseSummary(payload),
        }),
        now,
      );
    });
    await this.deliverAudits();
    return this.status();
  }

  /**
   * Edition upgrade STANDALONE → DISTRIBUTED with a publisher-signed edition-upgrade lease for the
   * licence `licenseId`. The lease becomes the licence's lease, the deployment state's edition changes
   * and an audit record is written, all in one transaction (the record reaches the user service after
   * the commit, retried by the task licenses.audit-delivery until it does). No way leads back.
   */
  async upgradeEdition(
    licenseId: string,
    leaseText: string,
    actor: LicenseActor,
    clientIp: string | null,
  ): Promise<LicenseStatusResponse> {
    const publicKey = this.requireKey();
    let payload: LeasePayload;
    try {
      payload = verifyLease(leaseText, publicKey);
    } catch (error) {
      if (error instanceof LeaseError) throw licenseInvalid(error);
      throw error;
    }
    const notAllowed = (edition: Edition) =>
      new AppError(
        409,
        'EDITION_UPGRADE_NOT_ALLOWED',
        `this install is ${edition} already; there is no other upgrade and no downgrade`,
        { edition },
      );
    const current = await this.deps.deployment.edition();
    if (current !== 'STANDALONE') throw notAllowed(current);
    if (payload.kind !== 'edition-upgrade' || payload.edition !== 'DISTRIBUTED') {
      throw new AppError(
        400,
        'LICENSE_INVALID',
        'an edition upgrade needs an edition-upgrade lease for the DISTRIBUTED edition (svc license upgrade)',
        { reason: 'kind' },
      );
    }
    if (payload.licenseId !== licenseId) {
      throw new AppError(
        400,
        'LICENSE_INVALID',
        `the lease is for licence ${payload.licenseId}, not ${licenseId}`,
        {
          reason: 'license-id',
        },
      );
    }
    const now = new Date(this.deps.clock.now());
    await this.checkUsable(payload, now);

    await this.deps.licenses.transaction(async ({ licenses, deployment }) => {
      const edition: Edition = await deployment.lockEdition();
      // Again under the row lock: a concurrent upgrade may have committed since the read above.
      if (edition !== 'STANDALONE') throw notAllowed(edition);
      const stored = await licenses.find(licenseId, { lock: true });
      if (!stored) {
        throw new AppError(404, 'LICENSE_NOT_FOUND', `licence ${licenseId} is not activated on this install`);
      }
      await licenses.replaceLease(licenseId, leaseText.trim(), payload, now);
      await deployment.setEdition('DISTRIBUTED', now);
      await licenses.queueAudit(
        auditEntry(actor, clientIp, 'license.edition-upgrade', licenseId, {
          from: edition,
          to: 'DISTRIBUTED',
          ...leaseSummary(payload),
        }),
        now,
      );
    });
    await this.deliverAudits();
    return this.status();
  }

  /**
   * Sends the queued audit records to the user service, oldest first; stops at the first failure (the
   * user service is down) and leaves the rest for the next run. Answers how many were delivered.
   */
  async deliverAudits(): Promise<number> {
    let delivered = 0;
    for (const pending of await this.deps.licenses.pendingAudits()) {
      try {
        await this.deps.audit.record(pending.entry);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        await this.deps.licenses.auditFailed(pending.id, message);
        this.deps.logger.warn(
          { action: pending.entry.action, attempts: pending.attempts + 1, err: message },
          'licence audit record not delivered yet; retried by licenses.audit-delivery',
        );
        break;
      }
      await this.deps.licenses.auditDelivered(pending.id);
      delivered++;
    }
    return delivered;
  }

  private requireKey(): KeyObject {
    if (!this.deps.publicKey) {
      throw new AppError(
        409,
        'LICENSE_KEY_NOT_CONFIGURED',
        'no publisher public key is configured (SVC_LICENSE_PUBLIC_KEY), so no licence can be activated',
      );
    }
    return this.deps.publicKey;
  }

  /** A lease is taken only for this install and only while it is usable (ACTIVE or GRACE). */
  private async checkUsable(payload: LeasePayload, now: Date): Promise<void> {
    const installId = await this.deps.deployment.installId();
    if (payload.installId !== undefined && payload.installId !== installId) {
      throw new AppError(409, 'LICENSE_INSTALL_MISMATCH', 'the licence is bound to another install', {
        installId,
        licenseInstallId: payload.installId,
      });
    }
    const state = leaseState(payload, now.getTime());
    if (state === 'EXPIRED') {
      throw new AppError(409, 'LICENSE_EXPIRED', `the licence expired (grace ended ${payload.graceUntil})`, {
        graceUntil: payload.graceUntil,
      });
    }
    if (state === 'NOT_YET_VALID') {
      throw new AppError(409, 'LICENSE_NOT_YET_VALID', `the licence is valid from ${payload.validFrom}`, {
        validFrom: payload.validFrom,
      });
    }
  }

  private async evaluate(): Promise<Evaluation> {
    const stored = await this.deps.licenses.current();
    if (!stored) return { state: 'NONE', stored, payload: undefined, reason: null };
    const invalid = (reason: InvalidReason): Evaluation => ({
      state: 'INVALID',
      stored,
      payload: undefined,
      reason,
    });
    if (!this.deps.publicKey) return invalid('no-public-key');
    let payload: LeasePayload;
    try {
      payload = verifyLease(stored.lease, this.deps.publicKey);
    } catch (error) {
      if (error instanceof LeaseError) return invalid(error.reason === 'payload' ? 'payload' : 'signature');
      throw error;
    }
    if (payload.licenseId !== stored.id) return invalid('payload');
    if (payload.installId !== undefined && payload.installId !== (await this.deps.deployment.installId())) {
      return invalid('install-mismatch');
    }
    const state = leaseState(payload, this.deps.clock.now());
    if (state === 'NOT_YET_VALID') return invalid('not-yet-valid');
    return { state, stored, payload, reason: null };
  }
}

/** The payload of a licence whose lease verified (ACTIVE, GRACE or EXPIRED); nothing for NONE and INVALID. */
function trusted(evaluation: Evaluation): LeasePayload | undefined {
  return evaluation.state === 'INVALID' ? undefined : evaluation.payload;
}

function leaseSummary(payload: LeasePayload): Record<string, unknown> {
  return {
    edition: payload.edition,
    maxStorageNodes: payload.maxStorageNodes,
    maxPlayAgentNodes: payload.maxPlayAgentNodes,
    validUntil: payload.validUntil,
    graceUntil: payload.graceUntil,
  };
}

function auditEntry(
  actor: LicenseActor,
  clientIp: string | null,
  action: AuditAction,
  licenseId: string,
  details: Record<string, unknown>,
): RecordAuditRequest {
  return {
    actor: actor ? { userId: actor.userId, username: actor.username } : null,
    action,
    targetType: 'license',
    targetId: licenseId,
    details,
    clientIp: clientIp || null,
  };
}
