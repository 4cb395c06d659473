import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LegacyNodesReport, PromoteLegacyNodesResponse } from '@svc/contracts';
import type { ConfigParts } from '../../../src/services/config/config.component.js';
import { DeploymentRepository } from '../../../src/services/config/deployment/deployment.repository.js';
import { startConsoleInstall, type ConsoleInstall } from '../../support/console-install.js';
import { installBackends } from '../../support/install-backends.js';

const REPORT = '/api/config/deployment/legacy-nodes/report';
const PROMOTE = '/api/config/deployment/legacy-nodes/promote';

describe.each(installBackends())('legacy nodes (report and promotion) on $label', (backend) => {
  let control: ConsoleInstall;
  let parts: ConfigParts;

  const api = <T = unknown>(
    method: string,
    route: string,
    options: { admin?: string; body?: unknown } = {},
  ) => control.api<T>(method, route, options);
  const admin = <T = unknown>(method: string, route: string, body?: unknown) =>
    control.admin<T>(method, route, body);
  const consoleLogin = (username: string) => control.login(username, 'console');
  const createUser = async (username: string, permissions: string[]) => {
    await control.createUser(username, { permissions });
  };
  /** A record a legacy multi-container install left behind (EXTERNAL, with its tokens). */
  const seedExternal = async (nodeId: string, serviceType: 'svc-control-storage' | 'svc-play-agent') => {
    await parts.nodes.ensure({ nodeId, serviceType, name: `legacy ${nodeId}`, scope: 'EXTERNAL' });
  };
  /** Every worker record's scope and disabled flag: what a refused call must leave as it was. */
  const snapshot = async () =>
    parts.database.db
      .selectFrom('nodes')
      .select(['node_id', 'scope', 'disabled', 'updated_at'])
      .orderBy('node_id')
      .execute();
  const setEdition = (edition: 'STANDALONE' | 'DISTRIBUTED') =>
    new DeploymentRepository(parts.database.db).setEdition(edition, new Date());

  beforeAll(async () => {
    control = await startConsoleInstall(backend.env);
    parts = control.config;

    // One legacy storage node that once sent a heartbeat; two legacy play-agents (a choice is required).
    await seedExternal('node-old-storage', 'svc-control-storage');
    await parts.nodes.recordHeartbeat(
      'node-old-storage',
      'svc-control-storage',
      new Date('2026-01-02T03:04:05Z'),
    );
    await seedExternal('node-old-player-a', 'svc-play-agent');
    await seedExternal('node-old-player-b', 'svc-play-agent');
  });

  afterAll(async () => {
    await control?.stop();
    await backend.cleanup();
  });

  it('requires an admin token holding `node`', async () => {
    expect((await api('GET', REPORT)).status).toBe(401);
    expect((await api('POST', PROMOTE, { body: { confirm: true } })).status).toBe(401);
    await createUser('librarian', ['library']);
    const librarian = await consoleLogin('librarian');
    expect((await api('GET', REPORT, { admin: librarian })).status).toBe(403);
    expect(
      (
        await api('POST', PROMOTE, {
          admin: librarian,
          body: { storageNodeId: 'node-old-storage', confirm: true },
        })
      ).status,
    ).toBe(403);
    await createUser('operator', ['node']);
    const operator = await consoleLogin('operator');
    expect((await api('GET', REPORT, { admin: operator })).status).toBe(200);
  });

  it('reports the external records, the candidates per type and whether the embedded ids match', async () => {
    const before = await snapshot();
    const answer = await admin<LegacyNodesReport>('GET', REPORT);
    expect(answer.status).toBe(200);
    const report = answer.body;
    expect(report.edition).toBe('STANDALONE');
    expect(report.storage).toMatchObject({
      serviceType: 'svc-control-storage',
      embeddedNodeId: 'node-local-storage',
      candidates: ['node-old-storage'],
      promotable: true,
      choiceRequired: false,
      embeddedIdMatches: false,
    });
    expect(report.storage.externalNodes).toEqual([
      {
        nodeId: 'node-old-storage',
        name: 'legacy node-old-storage',
        status: 'offline',
        lastHeartbeatAt: '2026-01-02T03:04:05.000Z',
        disabled: false,
      },
    ]);
    expect(report.storage.effect).toContain('node-old-storage would become the built-in node');
    expect(report.playAgent).toMatchObject({
      serviceType: 'svc-play-agent',
      embeddedNodeId: 'node-local-play-agent',
      candidates: ['node-old-player-a', 'node-old-player-b'],
      promotable: false,
      choiceRequired: true,
      embeddedIdMatches: null,
    });
    expect(
      report.playAgent.externalNodes.map((node) => [node.nodeId, node.status, node.lastHeartbeatAt]),
    ).toEqual([
      ['node-old-player-a', 'PENDING', null],
      ['node-old-player-b', 'PENDING', null],
    ]);
    expect(report.playAgent.effect).toContain('a choice is required');
    // No token is ever part of the report.
    expect(JSON.stringify(report)).not.toMatch(/svc_(nt|rt|ept)_/);
    // Read-only.
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a missing confirmation, a non-candidate id and an id of the wrong type with 400, changing nothing', async () => {
    const before = await snapshot();
    const refusals: [unknown, string][] = [
      [{ storageNodeId: 'node-old-storage' }, 'VALIDATION_FAILED'],
      [{ storageNodeId: 'node-old-storage', confirm: false }, 'VALIDATION_FAILED'],
      [{ storageNodeId: 'node-old-storage', confirm: 'true' }, 'VALIDATION_FAILED'],
      [{ confirm: true }, 'VALIDATION_FAILED'], // no id: nothing to promote
      [{ storageNodeId: 'node-nope', confirm: true }, 'LEGACY_NODE_NOT_CANDIDATE'],
      // A built-in record is no candidate.
      [{ storageNodeId: 'node-local-storage', confirm: true }, 'LEGACY_NODE_NOT_CANDIDATE'],
      // A play-agent named as the storage node (wrong type), and the other way round.
      [{ storageNodeId: 'node-old-player-a', confirm: true }, 'LEGACY_NODE_NOT_CANDIDATE'],
      [{ playAgentNodeId: 'node-old-storage', confirm: true }, 'LEGACY_NODE_NOT_CANDIDATE'],
      // One good id does not carry a bad one through: nothing is promoted.
      [
        { storageNodeId: 'node-old-storage', playAgentNodeId: 'node-nope', confirm: true },
        'LEGACY_NODE_NOT_CANDIDATE',
      ],
    ];
    for (const [body, code] of refusals) {
      const refused = await admin('POST', PROMOTE, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.error?.code, JSON.stringify(body)).toBe(code);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('answers 409 EDITION_NOT_STANDALONE on a DISTRIBUTED install, for the report and the promotion', async () => {
    const before = await snapshot();
    await setEdition('DISTRIBUTED');
    try {
      const report = await admin('GET', REPORT);
      expect(report.status).toBe(409);
      expect(report.error?.code).toBe('EDITION_NOT_STANDALONE');
      const promote = await admin('POST', PROMOTE, { storageNodeId: 'node-old-storage', confirm: true });
      expect(promote.status).toBe(409);
      expect(promote.error?.code).toBe('EDITION_NOT_STANDALONE');
    } finally {
      await setEdition('STANDALONE');
    }
    expect(await snapshot()).toEqual(before);
  });

  it('promotes the confirmed candidates in one go: EMBEDDED with ids kept, the others disabled and kept', async () => {
    const tokensBefore = await parts.nodes.tokens('node-old-player-b');
    const answer = await admin<PromoteLegacyNodesResponse>('POST', PROMOTE, {
      storageNodeId: 'node-old-storage',
      playAgentNodeId: 'node-old-player-b',
      confirm: true,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.promoted).toEqual([
      { serviceType: 'svc-control-storage', nodeId: 'node-old-storage' },
      { serviceType: 'svc-play-agent', nodeId: 'node-old-player-b' },
    ]);
    expect(answer.body.disabled).toEqual([{ serviceType: 'svc-play-agent', nodeId: 'node-old-player-a' }]);
    expect(answer.body.environment).toEqual([
      {
        variable: 'SVC_EMBEDDED_STORAGE_NODE_ID',
        current: 'node-local-storage',
        required: 'node-old-storage',
      },
      {
        variable: 'SVC_EMBEDDED_PLAY_AGENT_NODE_ID',
        current: 'node-local-play-agent',
        required: 'node-old-player-b',
      },
    ]);
    expect(answer.body.reminder).toContain('SVC_EMBEDDED_STORAGE_NODE_ID=node-old-storage');
    expect(answer.body.reminder).toContain('SVC_EMBEDDED_PLAY_AGENT_NODE_ID=node-old-player-b');

    // The records: ids and tokens kept, scope moved, the unchosen one disabled but still there.
    const rows = await parts.database.db
      .selectFrom('nodes')
      .select(['node_id', 'scope', 'disabled'])
      .where('node_id', 'in', ['node-old-storage', 'node-old-player-a', 'node-old-player-b'])
      .orderBy('node_id')
      .execute();
    expect(rows).toEqual([
      { node_id: 'node-old-player-a', scope: 'EXTERNAL', disabled: true },
      { node_id: 'node-old-player-b', scope: 'EMBEDDED', disabled: false },
      { node_id: 'node-old-storage', scope: 'EMBEDDED', disabled: false },
    ]);
    expect(await parts.nodes.tokens('node-old-player-b')).toEqual(tokensBefore);

    // The new report: nothing left to promote; the disabled record is still listed.
    const report = answer.body.report;
    expect(report.storage).toMatchObject({ candidates: [], externalNodes: [], promotable: false });
    expect(report.playAgent.candidates).toEqual([]);
    expect(report.playAgent.externalNodes).toMatchObject([{ nodeId: 'node-old-player-a', disabled: true }]);
    expect((await admin<LegacyNodesReport>('GET', REPORT)).body).toEqual(report);

    // Nothing can be promoted twice.
    const again = await admin('POST', PROMOTE, { storageNodeId: 'node-old-storage', confirm: true });
    expect(again.status).toBe(400);
    expect(again.error?.code).toBe('LEGACY_NODE_NOT_CANDIDATE');
  });

  it('leaves promoted nodes to the install: no deletion, uninstall or upgrade of their own (NODE_EMBEDDED)', async () => {
    for (const nodeId of ['node-old-storage', 'node-old-player-b']) {
      const deleted = await admin('DELETE', `/api/config/nodes/${nodeId}?sendUninstall=true`);
      expect(deleted.status, nodeId).toBe(409);
      expect(deleted.error?.code).toBe('NODE_EMBEDDED');
      for (const action of ['uninstall', 'upgrade']) {
        const refused = await admin('POST', `/api/config/nodes/${nodeId}/${action}`);
        expect(refused.status, `${action} ${nodeId}`).toBe(409);
        expect(refused.error?.code).toBe('NODE_EMBEDDED');
      }
      expect((await admin('GET', `/api/config/nodes/${nodeId}`)).status).toBe(200);
    }
  });
});
