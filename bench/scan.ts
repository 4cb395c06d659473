// Library scan throughput: the synthetic tree of 10,000 files (6,000 videos) scanned by the media service
// through a storage node's internal API, next to the bare walk of the same tree through the same API
// (the reference measured in this run). Part of `npm run bench -- storage`; alone:
// `node --import tsx bench/scan.ts`. The node is the test suites' stand-in for the storage node's internal
// API (real HTTP, real files), so the figures are the media service's own cost.
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import type { Library, ScanStatus } from '@svc/contracts';
import { dropExternalDatabase } from '../packages/server/src/platform/db/index.js';
import { encodeIdentity } from '../packages/server/src/platform/http/route-auth.js';
import { createConfigComponent } from '../packages/server/src/services/config/config.component.js';
import { createMediaComponent } from '../packages/server/src/services/media/media.component.js';
import { HttpStorageGateway } from '../packages/server/src/services/media/storage/storage-gateway.js';
import { ADMIN } from '../packages/server/test/services/media/support/media-env.js';
import { startFakeStorageNode } from '../packages/server/test/services/media/support/fake-storage-node.js';
import { mediaFixtures } from '../packages/server/test/support/media-fixtures.js';
import { startTestInstall, waitFor } from '../packages/server/test/support/runtime.js';
import { seconds } from './support.js';

const NODE_ID = 'node-bench-synthetic';
const MOUNT_ID = '5b0f3c1e-0000-4000-8000-00000000beef';

export async function benchScan(): Promise<void> {
  const fixtures = await mediaFixtures();
  // The embedded database, or the PostgreSQL server of SVC_TEST_DATABASE_URL (its bench databases are dropped).
  const databaseUrl = process.env.SVC_TEST_DATABASE_URL;
  const suffix = `_bench${Date.now() % 1_000_000}`;
  const install = await startTestInstall(
    [createConfigComponent, createMediaComponent],
    databaseUrl
      ? { SVC_DB_MODE: 'external', SVC_DATABASE_URL: databaseUrl, SVC_DB_NAME_SUFFIX: suffix }
      : { SVC_DB_MODE: 'bundled' },
  );
  const node = await startFakeStorageNode({
    nodeId: NODE_ID,
    serviceToken: install.context.serviceToken,
    mounts: [{ id: MOUNT_ID, name: 'Synthetic', root: fixtures.synthetic.root }],
    probeAvailable: false,
  });
  try {
    node.register(install.context.registry);
    await waitFor(async () =>
      (await install.context.registry.lookup('svc-control-storage', NODE_ID)).length ? true : undefined,
    );
    const headers = {
      'x-svc-service-token': install.context.serviceToken,
      'x-svc-identity': encodeIdentity(ADMIN),
      'content-type': 'application/json',
    };
    const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => {
      const response = await request(`${install.url('media')}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await response.body.json()) as T;
    };

    // Reference: the walk alone, through the same API and client.
    const gateway = new HttpStorageGateway({
      registry: install.context.registry,
      serviceToken: install.context.serviceToken,
    });
    let walked = 0;
    const walkStart = performance.now();
    for await (const _entry of gateway.walk(NODE_ID, MOUNT_ID, '/')) walked += 1;
    const walkMs = performance.now() - walkStart;

    const library = await call<Library>('POST', '/api/media/libraries', {
      name: 'Bench',
      type: 'mixed',
      sources: [{ nodeId: NODE_ID, mountId: MOUNT_ID, path: '/' }],
      // The bench times the scans it starts itself.
      scan: false,
    });
    const scan = async (mode: 'full' | 'incremental') => {
      const start = performance.now();
      const started = await call<ScanStatus>('POST', `/api/media/libraries/${library.id}/scan`, { mode });
      const done = await waitFor(
        async () => {
          const { scan: current } = await call<{ scan: ScanStatus }>(
            'GET',
            `/api/media/libraries/${library.id}/scan`,
          );
          return current.id === started.id && current.state !== 'queued' && current.state !== 'running'
            ? current
            : undefined;
        },
        600_000,
        20,
      );
      if (done.state !== 'succeeded') throw new Error(`scan ${mode} ended ${done.state}: ${done.error}`);
      return { ms: performance.now() - start, done };
    };
    const full = await scan('full');
    const incremental = await scan('incremental');

    const rate = (count: number, ms: number) => `${Math.round(count / (ms / 1000))}/s`;
    console.log('media service scan (synthetic tree, internal API stand-in, no probe tool)');
    console.log(`backend            ${install.context.settings.dbMode}`);
    console.log(`walk (reference)   ${walked} entries in ${seconds(walkMs)} (${rate(walked, walkMs)})`);
    console.log(
      `full scan          ${full.done.filesTotal} videos, ${full.done.itemsAdded} items in ${seconds(full.ms)} ` +
        `(${rate(fixtures.synthetic.files, full.ms)} files) — ${(full.ms / walkMs).toFixed(1)}× the walk`,
    );
    console.log(
      `incremental scan   ${incremental.done.filesSeen} videos unchanged in ${seconds(incremental.ms)} ` +
        `(${rate(fixtures.synthetic.files, incremental.ms)} files) — ${(incremental.ms / walkMs).toFixed(1)}× the walk`,
    );
  } finally {
    await install.stop();
    await node.close();
    if (databaseUrl) {
      for (const name of ['svc_config', 'svc_media'])
        await dropExternalDatabase(databaseUrl, `${name}${suffix}`);
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await benchScan();
