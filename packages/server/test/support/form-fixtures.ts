import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { fingerprintDatabase, type DatabaseFingerprint } from '../../src/form-migration/fingerprint.js';
import type { ConfigDatabase } from '../../src/services/config/config.db.js';
import { createManualEndpoint } from '../../src/services/config/nodes/manual-endpoints.repository.js';
import { NodesRepository } from '../../src/services/config/nodes/nodes.repository.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- fixtures write raw rows into any schema */
type AnyDb = Kysely<any>;

export interface SeededNodes {
  storage: string[];
  playAgent: string[];
  scope: 'EMBEDDED' | 'EXTERNAL';
}

/** Values whose text form is easy to get wrong: microseconds, float digits, quotes, unicode, big integers. */
const AWKWARD_TIME = '2024-02-29 23:59:59.123456+00';
const AWKWARD_TEXT = `quote ' double " backslash \\ 中文 emoji 🎬`;

/**
 * Seeds the control databases like a used install: node records (with tokens), manual addresses, a removal
 * (identity id), node cache settings, users with node access and quotas naming the nodes, activity and audit
 * rows (identity ids), libraries whose sources name the storage nodes, items, scans. Returns the manual
 * addresses' endpoint tokens.
 */
export async function seedControl(
  dbs: { config: AnyDb; user: AnyDb; media: AnyDb },
  nodes: SeededNodes,
): Promise<{ endpointTokens: Record<string, string> }> {
  const repo = new NodesRepository(dbs.config as Kysely<ConfigDatabase>);
  for (const nodeId of nodes.storage) {
    await repo.ensure({
      nodeId,
      serviceType: 'svc-control-storage',
      name: `storage ${nodeId}`,
      scope: nodes.scope,
    });
  }
  for (const nodeId of nodes.playAgent) {
    await repo.ensure({ nodeId, serviceType: 'svc-play-agent', name: `play ${nodeId}`, scope: nodes.scope });
  }
  const endpointTokens: Record<string, string> = {};
  for (const [i, host] of ['play.example.org', 'cdn.example.net'].entries()) {
    const endpoint = await createManualEndpoint(dbs.config as Kysely<ConfigDatabase>, {
      nodeId: `node-manual-${i}`,
      name: `manual ${i} ${AWKWARD_TEXT}`,
      host,
      port: i === 0 ? null : 8443,
    });
    endpointTokens[endpoint.nodeId] = endpoint.endpointToken;
  }
  await sql`INSERT INTO node_removals (node_id, service_type, name, removed_at, removed_by, uninstall_requested,
              uninstall_result)
            VALUES ('node-gone-1', 'svc-play-agent', 'gone', ${AWKWARD_TIME}::timestamptz, 'admin', false,
                    'not-requested')`.execute(dbs.config);
  await sql`INSERT INTO node_cache_configs (node_id, config, updated_at)
            VALUES (${nodes.playAgent[0]!}, ${JSON.stringify({ video: { maxGb: 12.5 }, note: AWKWARD_TEXT })}::jsonb,
                    ${AWKWARD_TIME}::timestamptz)`.execute(dbs.config);

  const users = [randomUUID(), randomUUID(), randomUUID()];
  for (const [i, id] of users.entries()) {
    await sql`INSERT INTO users (id, username, display_name, role, password_hash, permissions, created_at, updated_at)
              VALUES (${id}, ${`user${i}`}, ${`User ${i} ${AWKWARD_TEXT}`}, ${i === 0 ? 'admin' : 'user'},
                      ${'scrypt$abc$def'}, ${JSON.stringify(['node', 'storage'])}::jsonb,
                      ${AWKWARD_TIME}::timestamptz, now())`.execute(dbs.user);
  }
  const allowList = [
    ...nodes.playAgent.map((id) => ({ kind: 'node', id })),
    { kind: 'endpoint', id: 'node-manual-0' },
  ];
  await sql`INSERT INTO user_node_access (user_id, mode, entries, updated_at)
            VALUES (${users[1]!}, 'ALLOW_LIST', ${JSON.stringify(allowList)}::jsonb, now()),
                   (${users[2]!}, 'ALLOW_LIST', ${JSON.stringify(allowList.slice(-1))}::jsonb, now())`.execute(
    dbs.user,
  );
  for (const nodeId of nodes.playAgent) {
    await sql`INSERT INTO user_quotas (user_id, scope, target_kind, target_id, enabled, amount, unit, period)
              VALUES (${users[1]!}, 'route', 'node', ${nodeId}, true, 0.1, 'GB', 'week')`.execute(dbs.user);
  }
  const playAgents = JSON.stringify(nodes.playAgent);
  const userIds = JSON.stringify(users);
  await sql`INSERT INTO activity_log (event_id, user_id, username, event_type, occurred_at, received_at, session_id,
              client_ip, user_agent, media_id, media_type, media_name, duration_ms, bytes_delta, position_sec,
              runtime_sec, node_id, endpoint_id, client, device_name, device_id, play_method, extras)
            SELECT gen_random_uuid(), (${userIds}::jsonb ->> (i % 3))::uuid, 'user' || (i % 3), 'progress',
                   ${AWKWARD_TIME}::timestamptz + i * interval '1 second', now(), 's' || (i % 7), '203.0.113.9',
                   ${AWKWARD_TEXT}, 'm' || i, 'movie', 'Film', i * 1000, 9007199254740000 + i, i / 3.0, 1e-7,
                   ${playAgents}::jsonb ->> (i % jsonb_array_length(${playAgents}::jsonb)), null, 'client', 'tv',
                   'dev', 'DirectPlay', '{}'
              FROM generate_series(0, 1233) AS i`.execute(dbs.user);
  await sql`DELETE FROM activity_log WHERE id % 10 = 0`.execute(dbs.user); // gaps in the identity
  await sql`INSERT INTO audit_log (at, actor_id, actor_name, action, details)
            VALUES (${AWKWARD_TIME}::timestamptz, ${users[0]!}, 'user0', 'node.create',
                    ${JSON.stringify({ nested: { list: [1, 2.5, null, 'x'] } })}::jsonb)`.execute(dbs.user);

  const library = randomUUID();
  await sql`INSERT INTO libraries (id, name, type, created_at, updated_at)
            VALUES (${library}, 'Films', 'movies', now(), now())`.execute(dbs.media);
  for (const [i, nodeId] of nodes.storage.entries()) {
    for (let j = 0; j < 2 + i; j++) {
      const source = randomUUID();
      await sql`INSERT INTO library_sources (id, library_id, position, node_id, mount_id, path)
                VALUES (${source}, ${library}, ${i * 10 + j}, ${nodeId}, ${randomUUID()}, ${`/films/${j}`})`.execute(
        dbs.media,
      );
      const movie = randomUUID();
      await sql`INSERT INTO media_items (id, library_id, source_id, kind, item_key, path, title, sort_title, year,
                  release_date, file_size, file_mtime, media_info, created_at, updated_at)
                VALUES (${movie}, ${library}, ${source}, 'movie', ${`k${j}`}, ${`/films/${j}/a.mkv`}, ${AWKWARD_TEXT},
                        'a', 1999, '1999-12-31', 5000000000, ${AWKWARD_TIME}::timestamptz,
                        ${JSON.stringify({ streams: [{ codec: 'h264', bitrate: 1.5e6 }] })}::jsonb, now(), now())`.execute(
        dbs.media,
      );
      await sql`INSERT INTO media_scans (id, library_id, mode, trigger, scope_source_id, state, phase, created_at)
                VALUES (${randomUUID()}, ${library}, 'full', 'manual', ${source}, 'queued', 'queued', now())`.execute(
        dbs.media,
      );
    }
  }
  return { endpointTokens };
}

/** Seeds a storage database: two mounts (one local), a transfer and an open upload with chunks. */
export async function seedStorage(db: AnyDb, localRoot: string): Promise<void> {
  const local = randomUUID();
  const dav = randomUUID();
  await sql`INSERT INTO storage_mounts (id, name, provider, config, created_at, updated_at)
            VALUES (${local}, 'Local', 'local', ${JSON.stringify({ root: localRoot })}::jsonb, now(), now()),
                   (${dav}, ${AWKWARD_TEXT}, 'webdav', ${JSON.stringify({ url: 'https://dav.example.org/' })}::jsonb,
                    ${AWKWARD_TIME}::timestamptz, now())`.execute(db);
  await sql`INSERT INTO storage_transfers (id, kind, state, source_mount_id, source_path, target_mount_id,
              target_path, overwrite, max_bytes_per_second, created_at, updated_at)
            VALUES (${randomUUID()}, 'copy', 'queued', ${local}, '/a', ${dav}, '/b', false, 1048576, now(), now())`.execute(
    db,
  );
  const upload = randomUUID();
  await sql`INSERT INTO storage_uploads (id, mount_id, path, size, overwrite, chunk_size, chunk_count, staging, state,
              created_at, updated_at, expires_at)
            VALUES (${upload}, ${local}, '/up.bin', 10, false, 5, 2, ${upload}, 'open', now(), now(),
                    now() + interval '1 day')`.execute(db);
  await sql`INSERT INTO storage_upload_chunks (upload_id, chunk_index) VALUES (${upload}, 0), (${upload}, 1)`.execute(
    db,
  );
}

/** Takes the fingerprint of a database opened for it, and closes it again whatever happens. */
export async function fingerprintOpened(
  opening: Promise<{ db: AnyDb; close(): Promise<void> }>,
): Promise<DatabaseFingerprint> {
  const database = await opening;
  try {
    return await fingerprintDatabase(database.db);
  } finally {
    await database.close();
  }
}
