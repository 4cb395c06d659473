import type { ClusterLicenceStatus } from '@svc/contracts';
import type { Logger } from '../../../platform/logger.js';
import type { LicenseGate } from '../licenses/license-gate.js';
import type { ClusterLeaseRepository, LeaseRow } from './cluster-lease.repository.js';

export interface ClusterLicenceOptions {
  repository: ClusterLeaseRepository;
  licence: LicenseGate;
  /** This control instance: `control@<its 18089 address>`. */
  instanceId: string;
  /** Its 18089 address as the other instances reach it. */
  url: string;
  leaseMs: number;
  logger: Logger;
}

const iso = (value: Date) => new Date(value).toISOString();

/**
 * The cluster licence sync (docs/licences.md): every control instance beats every third of the lease time; the
 * beat records the instance as a member and takes or renews the licence lease. The holder re-verifies the
 * licence at each beat and stores the result, which every instance answers on 18089. A holder that stops gives
 * the lease up; one that dies leaves it to expire, and the next beat of another instance takes it over.
 */
export class ClusterLicenceService {
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> = Promise.resolve();
  private heldTerm: number | undefined;
  /** Set by halt(): a killed process gives nothing up. */
  private halted = false;

  constructor(private readonly options: ClusterLicenceOptions) {}

  get beatMs(): number {
    return Math.max(500, Math.floor(this.options.leaseMs / 3));
  }

  start(): void {
    if (this.timer) return;
    void this.beat();
    this.timer = setInterval(() => void this.beat(), this.beatMs);
    this.timer.unref();
  }

  /** Stops beating without giving the lease up: what a killed process leaves behind (tests use it). */
  halt(): void {
    this.stopBeating();
    this.halted = true;
  }

  private stopBeating(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Stops beating and gives the lease up, so another instance takes it at its next beat. */
  async stop(): Promise<void> {
    this.stopBeating();
    await this.beating;
    if (this.heldTerm !== undefined && !this.halted) {
      this.heldTerm = undefined;
      await this.options.repository.release(this.options.instanceId).catch((error: unknown) => {
        this.options.logger.warn({ err: (error as Error).message }, 'cluster licence lease: release failed');
      });
    }
  }

  /** One beat (never two at a time); failures are logged, the next beat tries again. */
  beat(): Promise<void> {
    this.beating = this.beating.then(() =>
      this.beatOnce().catch((error: unknown) => {
        this.options.logger.warn({ err: (error as Error).message }, 'cluster licence beat failed');
      }),
    );
    return this.beating;
  }

  private async beatOnce(): Promise<void> {
    const { repository, instanceId, url, leaseMs, logger } = this.options;
    await repository.seen(instanceId, url);
    const held = await repository.acquireOrRenew(instanceId, url, leaseMs);
    const term = held === undefined ? undefined : Number(held.term);
    if (term !== this.heldTerm) {
      if (term !== undefined) logger.info({ term }, 'cluster licence lease taken');
      else if (this.heldTerm !== undefined)
        logger.warn({ term: this.heldTerm }, 'cluster licence lease lost');
      this.heldTerm = term;
    }
    if (term === undefined) return;
    const facts = await this.options.licence.refresh();
    await repository.writeLicence(instanceId, term, {
      ...facts,
      checkedAt: new Date().toISOString(),
      checkedBy: instanceId,
      term,
    });
  }

  /** The shared status: the same lease, licence and members on every instance; `isHolder` is this one's. */
  async status(): Promise<ClusterLicenceStatus> {
    const { now, lease, members } = await this.options.repository.read();
    const current = lease && lease.expires_at.getTime() > now.getTime() ? lease : undefined;
    return {
      instanceId: this.options.instanceId,
      isHolder: current?.holder === this.options.instanceId,
      leaseSeconds: Math.round(this.options.leaseMs / 1000),
      now: iso(now),
      lease: current ? leaseView(current) : null,
      licence: lease?.licence ?? null,
      members: members.map((member) => ({
        instanceId: member.instance_id,
        url: member.url,
        lastSeenAt: iso(member.last_seen_at),
        live: now.getTime() - new Date(member.last_seen_at).getTime() <= this.options.leaseMs,
      })),
    };
  }

  /** A beat now (e.g. after a licence activation on any instance), then the status. */
  async refreshNow(): Promise<ClusterLicenceStatus> {
    await this.beat();
    return this.status();
  }
}

function leaseView(row: LeaseRow) {
  return {
    holder: row.holder,
    holderUrl: row.holder_url,
    term: Number(row.term),
    acquiredAt: iso(row.acquired_at),
    renewedAt: iso(row.renewed_at),
    expiresAt: iso(row.expires_at),
  };
}
