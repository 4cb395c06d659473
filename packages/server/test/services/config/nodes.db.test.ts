import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { ConfigDatabase } from '../../../src/services/config/config.db.js';
import { configMigrations } from '../../../src/services/config/migrations/index.js';
import {
  createManualEndpoint,
  regenerateEndpointToken,
} from '../../../src/services/config/nodes/manual-endpoints.repository.js';
import { NodesRepository } from '../../../src/services/config/nodes/nodes.repository.js';
import {
  NODE_OFFLINE_AFTER_MS,
  effectiveNodeStatus,
} from '../../../src/services/config/nodes/nodes.service.js';
import { tokenSha256 } from '../../../src/services/config/nodes/node-tokens.js';
import { runMigrations } from '../../../src/platform/db/index.js';
import { testBackends } from '../../support/databases.js';

describe.each(testBackends())('config node records on $label', (backend) => {
  afterAll(async () => {
    await backend.cleanup();
  });

  it('gives records made before the credentials migration their tokens, and enforces tokens by type', async () => {
    const database = await backend.open<ConfigDatabase>('svc_config');
    // An install of the previous version: the first two migrations and the built-in nodes.
    await runMigrations(database, configMigrations.slice(0, 2));
    await sql`
      INSERT INTO nodes (node_id, service_type, name, scope) VALUES
        ('node-local-storage', 'svc-control-storage', 'Built-in storage', 'EMBEDDED'),
        ('node-local-play-agent', 'svc-play-agent', 'Built-in play-agent', 'EMBEDDED')`.execute(database.db);

    await runMigrations(database, configMigrations);
    const nodes = new NodesRepository(database.db);
    const storage = await nodes.tokens('node-local-storage');
    const player = await nodes.tokens('node-local-play-agent');
    expect(storage?.nodeToken).toMatch(/^svc_nt_/);
    expect(storage?.registryToken).toMatch(/^svc_rt_/);
    expect(player?.nodeToken).toMatch(/^svc_nt_/);
    expect(
      new Set([storage?.nodeToken, storage?.registryToken, player?.nodeToken, player?.registryToken]).size,
    ).toBe(4);
    const [row] = await nodes.findByIds(['node-local-play-agent']);
    expect(row).toMatchObject({ status: 'PENDING', lastHeartbeatAt: null, disabled: false });

    // Starting again (ensure) keeps them.
    await nodes.ensure({
      nodeId: 'node-local-storage',
      serviceType: 'svc-control-storage',
      name: 'Built-in storage',
      scope: 'EMBEDDED',
    });
    expect(await nodes.tokens('node-local-storage')).toEqual(storage);

    // A worker node without tokens, or a manual address without an endpoint token, cannot be stored.
    await expect(
      sql`INSERT INTO nodes (node_id, service_type, name, scope) VALUES ('node-bare', 'svc-play-agent', 'x', 'EXTERNAL')`.execute(
        database.db,
      ),
    ).rejects.toThrow();
    await expect(
      sql`INSERT INTO nodes (node_id, service_type, name, scope) VALUES ('node-bare', 'manual-play-agent-endpoint', 'x', 'EXTERNAL')`.execute(
        database.db,
      ),
    ).rejects.toThrow();
    await database.close();
  });

  it('stores a manual address with its token and the token hash, and regenerates both', async () => {
    const database = await backend.open<ConfigDatabase>('svc_config', configMigrations);
    const created = await createManualEndpoint(database.db, {
      nodeId: 'node-proxy-db',
      name: 'Playback',
      host: 'play.example.org',
      note: 'behind nginx',
    });
    expect(created).toMatchObject({ port: null, url: 'https://play.example.org', note: 'behind nginx' });
    const stored = await database.db
      .selectFrom('nodes')
      .select([
        'endpoint_token',
        'endpoint_token_sha256',
        'node_token',
        'registry_token',
        'external_protocol',
      ])
      .where('node_id', '=', 'node-proxy-db')
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({
      endpoint_token: created.endpointToken,
      endpoint_token_sha256: tokenSha256(created.endpointToken),
      node_token: null,
      registry_token: null,
      external_protocol: 'https',
    });
    const nodes = new NodesRepository(database.db);
    expect(await nodes.findEndpointByTokenHash(tokenSha256(created.endpointToken))).toMatchObject({
      nodeId: 'node-proxy-db',
    });
    const regenerated = await regenerateEndpointToken(database.db, 'node-proxy-db');
    expect(await nodes.findEndpointByTokenHash(tokenSha256(created.endpointToken))).toBeUndefined();
    expect(await nodes.findEndpointByTokenHash(tokenSha256(regenerated.endpointToken))).toMatchObject({
      nodeId: 'node-proxy-db',
    });
  });

  it('computes offline on read from the last heartbeat', () => {
    const at = new Date('2024-03-06T04:00:00.000Z');
    expect(effectiveNodeStatus('PENDING', null, at.getTime() + 10 * NODE_OFFLINE_AFTER_MS)).toBe('PENDING');
    expect(effectiveNodeStatus('ONLINE', at, at.getTime() + NODE_OFFLINE_AFTER_MS)).toBe('ONLINE');
    expect(effectiveNodeStatus('ONLINE', at, at.getTime() + NODE_OFFLINE_AFTER_MS + 1)).toBe('offline');
    expect(NODE_OFFLINE_AFTER_MS).toBe(30_000);
  });
});
