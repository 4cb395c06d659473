import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { ClusterLicenceStatus } from '@svc/contracts';
import { loadRole } from '../../../src/runtime/roles.js';
import { clusterComponentFactory } from '../../../src/services/config/cluster/cluster.component.js';
import type { ClusterLicenceService } from '../../../src/services/config/cluster/cluster-licence.service.js';
import { isPrivatePeer } from '../../../src/services/config/cluster/cluster.routes.js';
import { configComponentFactory } from '../../../src/services/config/config.component.js';
import type { LicenseGate } from '../../../src/services/config/licenses/license-gate.js';
import { installBackends } from '../../support/install-backends.js';
import { startTestInstall, waitFor, type TestInstall } from '../../support/runtime.js';

const LEASE_SECONDS = 3;
/** A heavily loaded machine may run a timer late: what a takeover may take beyond the lease's expiry. */
const SCHEDULING_SLACK_MS = 10_000;

const licence: LicenseGate = {
  refresh: async () => ({
    state: 'ACTIVE',
    edition: 'DISTRIBUTED',
    maxStorageNodes: 2,
    maxPlayAgentNodes: 3,
    validUntil: '2099-01-01T00:00:00.000Z',
    graceUntil: '2099-02-01T00:00:00.000Z',
  }),
};

interface ControlInstance {
  install: TestInstall;
  cluster: ClusterLicenceService;
  url: string;
}

// Several control instances share one PostgreSQL (the embedded database is one process's own).
const backends = installBackends().filter((backend) => backend.label === 'postgres+redis');

describe('the 18089 listener', () => {
  it('admits loopback and private-network peers only, and is not part of the standalone edition', async () => {
    for (const peer of [
      '127.0.0.1',
      '::1',
      '10.1.2.3',
      '172.16.0.9',
      '192.168.1.4',
      '::ffff:10.0.0.7',
      'fd00::5',
    ]) {
      expect(isPrivatePeer(peer), peer).toBe(true);
    }
    for (const peer of ['8.8.8.8', '203.0.113.5', '2001:4860::1', '::ffff:8.8.4.4', '100.64.0.1', '', 'x']) {
      expect(isPrivatePeer(peer), peer).toBe(false);
    }
    const standalone = await loadRole('standalone-control');
    const control = await loadRole('control');
    const { createClusterComponent } =
      await import('../../../src/services/config/cluster/cluster.component.js');
    expect(standalone).not.toContain(createClusterComponent);
    expect(control).toContain(createClusterComponent);
  });
});

describe.runIf(backends.length > 0)('cluster licence sync of two control instances on PostgreSQL', () => {
  const backend = backends[0]!;
  const instances: ControlInstance[] = [];

  const startControl = async (): Promise<ControlInstance> => {
    let cluster: ClusterLicenceService | undefined;
    const install = await startTestInstall(
      [
        configComponentFactory({ licenseGate: licence }),
        clusterComponentFactory({ expose: (c) => (cluster = c) }),
      ],
      backend.env,
      { topology: 'distributed', env: { SVC_CLUSTER_LEASE_SECONDS: String(LEASE_SECONDS) } },
    );
    const instance = {
      install,
      cluster: cluster!,
      url: `http://127.0.0.1:${install.context.settings.ports.cluster}`,
    };
    instances.push(instance);
    return instance;
  };
  const status = async (instance: ControlInstance, token = instance.install.context.serviceToken) => {
    const response = await request(`${instance.url}/api/config/internal/cluster/licence`, {
      headers: { 'x-svc-service-token': token },
    });
    return { status: response.statusCode, body: (await response.body.json()) as ClusterLicenceStatus };
  };
  const holderOf = async (instance: ControlInstance) => (await status(instance)).body.lease?.holder;

  let first: ControlInstance;
  let second: ControlInstance;

  beforeAll(async () => {
    first = await startControl();
    // The first instance takes the free lease at its first beat, before the second exists.
    await waitFor(async () => ((await status(first)).body.isHolder ? true : undefined), 30_000);
    second = await startControl();
  });

  afterAll(async () => {
    for (const instance of instances) await instance.install.stop();
    await backend.cleanup();
  });

  it('one instance holds the lease; every instance answers the same holder, licence and members', async () => {
    const both = await waitFor(async () => {
      const answers = [await status(first), await status(second)];
      return answers.every((answer) => answer.body.members.filter((member) => member.live).length === 2)
        ? answers
        : undefined;
    }, 30_000);
    const [fromFirst, fromSecond] = both.map((answer) => answer.body);
    expect(fromFirst!.isHolder).toBe(true);
    expect(fromSecond!.isHolder).toBe(false);
    expect(fromSecond!.lease).toMatchObject({ holder: fromFirst!.instanceId, holderUrl: first.url, term: 1 });
    expect(fromSecond!.lease!.holder).toBe(fromFirst!.lease!.holder);
    expect(fromSecond!.licence).toMatchObject({
      state: 'ACTIVE',
      edition: 'DISTRIBUTED',
      maxStorageNodes: 2,
      maxPlayAgentNodes: 3,
      checkedBy: fromFirst!.instanceId,
      term: 1,
    });
    expect(fromSecond!.leaseSeconds).toBe(LEASE_SECONDS);
    expect(fromSecond!.members.map((member) => member.instanceId).sort()).toEqual(
      [fromFirst!.instanceId, fromSecond!.instanceId].sort(),
    );
  });

  it('answers only with the service token', async () => {
    const route = `${second.url}/api/config/internal/cluster/licence`;
    expect((await request(route)).statusCode).toBe(401);
    const wrong = await status(second, 'svc_st_not_the_token_of_this_install_0123456789');
    expect(wrong.status).toBe(403);
    const refresh = await request(`${second.url}/api/config/internal/cluster/licence/refresh`, {
      method: 'POST',
    });
    expect(refresh.statusCode).toBe(401);
  });

  it('hands the lease over within the lease time when the holder dies', async () => {
    const firstId = (await status(first)).body.instanceId;
    // A killed process: no more beats and no release; its lease only runs out.
    first.cluster.halt();
    await first.install.stop();
    // Its last renewal, as the survivor sees it.
    const before = (await status(second)).body.lease!;
    expect(before.holder).toBe(firstId);
    const after = await waitFor(
      async () => {
        const answer = (await status(second)).body;
        return answer.isHolder ? answer : undefined;
      },
      LEASE_SECONDS * 1000 + SCHEDULING_SLACK_MS + 20_000,
      100,
    );
    expect(after.lease!.term).toBe(before.term + 1);
    // Not before the dead holder's last renewal expired, and within one beat (plus scheduling) after it.
    const expiredAt = Date.parse(before.expiresAt);
    const takenAt = Date.parse(after.lease!.acquiredAt);
    expect(takenAt).toBeGreaterThanOrEqual(expiredAt);
    expect(takenAt - Date.parse(before.renewedAt)).toBeLessThanOrEqual(
      LEASE_SECONDS * 1000 + second.cluster.beatMs + SCHEDULING_SLACK_MS,
    );
    await waitFor(async () =>
      (await status(second)).body.licence?.checkedBy === after.instanceId ? true : undefined,
    );
  });

  it('a holder that stops gives the lease up at once', async () => {
    const third = await startControl();
    expect(await holderOf(third)).toBe((await status(second)).body.instanceId);
    const stoppedAt = Date.now();
    await second.install.stop();
    instances.splice(instances.indexOf(second), 1);
    await waitFor(async () => ((await status(third)).body.isHolder ? true : undefined), 30_000, 100);
    // Released, not expired: the next beat took it, sooner than a whole lease.
    expect(Date.now() - stoppedAt).toBeLessThan(LEASE_SECONDS * 1000 + SCHEDULING_SLACK_MS);
  });
});
