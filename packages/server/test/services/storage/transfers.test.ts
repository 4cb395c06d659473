import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { Mount, Transfer } from '@svc/contracts';
import { gatewayFactory } from '../../../src/services/gateway/gateway.component.js';
import { GATEWAY_ROUTE_TABLE } from '../../../src/services/gateway/route-table.js';
import { streamTransferEvents } from '../../../src/services/storage/transfers/transfer-events.js';
import { installBackends } from '../../support/install-backends.js';
import { waitFor } from '../../support/runtime.js';
import { serviceHeaders, startStorage, waitForTransfer, type StorageHarness } from './storage-harness.js';

interface Received {
  transfer: Transfer;
  at: number;
}

/** Reads `event: transfer` frames (and heartbeat comments) from an event stream as they arrive. */
function collect(chunks: AsyncIterable<Buffer | string>) {
  const events: Received[] = [];
  let heartbeats = 0;
  let buffer = '';
  const done = (async () => {
    for await (const chunk of chunks) {
      buffer += chunk.toString();
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (frame.startsWith(': heartbeat')) heartbeats += 1;
        const data = /^event: transfer\ndata: (.*)$/m.exec(frame);
        if (data) events.push({ transfer: JSON.parse(data[1]!) as Transfer, at: Date.now() });
      }
    }
  })().catch(() => undefined);
  return { events, heartbeats: () => heartbeats, done };
}

const MB = 1024 * 1024;

describe.each(installBackends())('transfers and their event stream on $label', (backend) => {
  let storage: StorageHarness;
  let source: Mount;
  let sourceRoot: string;
  let target: Mount;
  let targetRoot: string;
  const big = randomBytes(6 * MB);

  beforeAll(async () => {
    storage = await startStorage(
      backend.env,
      { eventHeartbeatMs: 300 },
      [
        gatewayFactory([
          ...GATEWAY_ROUTE_TABLE,
          { methods: ['GET'], path: '/api/storage/test/transfer-events', rule: { kind: 'public' } },
        ]),
      ],
      (component) => {
        // The same stream on a public route, so curl can read it through a real gateway without sign-in.
        const { transfers, transferEvents } = component.services;
        component.app.get(
          '/api/storage/test/transfer-events',
          { config: { auth: { gateway: { kind: 'public' } }, endpoint: 'test.transferEvents' } },
          (req, reply) => streamTransferEvents(req, reply, transferEvents, () => transfers.active()),
        );
      },
    );
    ({ mount: source, root: sourceRoot } = await storage.localMount('source'));
    ({ mount: target, root: targetRoot } = await storage.localMount('target'));
    writeFileSync(path.join(sourceRoot, 'big.bin'), big);
  });

  afterAll(async () => {
    await storage?.stop();
    await backend.cleanup();
  });

  const start = async (kind: 'copy' | 'move', body: Record<string, unknown>, from = source) => {
    const response = await storage.api('POST', `/api/storage/mounts/${from.id}/${kind}`, { body });
    expect(response.status, response.body.toString()).toBe(202);
    return response.json<Transfer>();
  };
  const openStream = async () => {
    const controller = new AbortController();
    const response = await request(`${storage.base}/api/storage/mounts/transfer/events`, {
      headers: { ...serviceHeaders(storage.install), accept: 'text/event-stream' },
      signal: controller.signal,
    });
    return { response, controller, reader: collect(response.body) };
  };

  it('streams progress while the transfer runs, throttled, then its end', async () => {
    const subscribersBefore = storage.component.services.transferEvents.subscribers;
    const { response, controller, reader } = await openStream();
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/event-stream');
    expect(response.headers['x-accel-buffering']).toBe('no');
    expect(response.headers['cache-control']).toContain('no-cache');

    const transfer = await start('copy', {
      path: 'big.bin',
      targetMountId: target.id,
      targetPath: 'big copy.bin',
      maxBytesPerSecond: 3 * MB,
    });
    const finished = await waitForTransfer(storage, transfer.id);
    expect(finished).toMatchObject({ state: 'succeeded', bytes: { done: big.length, total: big.length } });
    await waitFor(async () =>
      reader.events.some((e) => e.transfer.id === transfer.id && e.transfer.state === 'succeeded')
        ? true
        : undefined,
    );
    const mine = reader.events.filter((e) => e.transfer.id === transfer.id);
    const states = mine.map((e) => e.transfer.state);
    expect(states[0]).toBe('queued');
    expect(states.at(-1)).toBe('succeeded');
    const progress = mine.filter((e) => e.transfer.state === 'running' && e.transfer.bytes.done > 0);
    expect(progress.length).toBeGreaterThanOrEqual(4);
    // The first progress event arrived while the copy was still going, long before its end.
    expect(progress[0]!.at).toBeLessThan(Date.parse(finished.finishedAt!) - 500);
    // Bytes only grow; the rate is reported; progress events respect the throttle (~4 per second).
    for (let i = 1; i < progress.length; i++) {
      expect(progress[i]!.transfer.bytes.done).toBeGreaterThanOrEqual(progress[i - 1]!.transfer.bytes.done);
      // The server's times: on a loaded machine two events may reach the client close together.
      const spacing =
        Date.parse(progress[i]!.transfer.updatedAt) - Date.parse(progress[i - 1]!.transfer.updatedAt);
      expect(spacing).toBeGreaterThanOrEqual(150);
    }
    expect(progress.some((e) => e.transfer.rate > 0)).toBe(true);
    expect(progress.length).toBeLessThan(20);
    expect(reader.heartbeats()).toBeGreaterThan(0);
    expect(readFileSync(path.join(targetRoot, 'big copy.bin')).equals(big)).toBe(true);

    controller.abort();
    await reader.done;
    await waitFor(async () =>
      storage.component.services.transferEvents.subscribers === subscribersBefore ? true : undefined,
    );
  });

  it('starts a new client with the running transfers', async () => {
    const transfer = await start('copy', {
      path: 'big.bin',
      targetMountId: target.id,
      targetPath: 'snapshot.bin',
      maxBytesPerSecond: 4 * MB,
    });
    await waitFor(async () =>
      (await storage.api('GET', `/api/storage/transfers/${transfer.id}`)).json<Transfer>().state === 'running'
        ? true
        : undefined,
    );
    const { controller, reader } = await openStream();
    await waitFor(async () => (reader.events.some((e) => e.transfer.id === transfer.id) ? true : undefined));
    expect(reader.events[0]?.transfer.id).toBe(transfer.id);
    controller.abort();
    await reader.done;
    await waitForTransfer(storage, transfer.id);
  });

  it('cancels a running transfer without leaving anything at the target, and retries it', async () => {
    const transfer = await start('copy', {
      path: 'big.bin',
      targetMountId: target.id,
      targetPath: 'cancelled.bin',
      maxBytesPerSecond: MB,
    });
    await waitFor(async () => {
      const current = (await storage.api('GET', `/api/storage/transfers/${transfer.id}`)).json<Transfer>();
      return current.bytes.done > 0 ? true : undefined;
    });
    const cancel = await storage.api('POST', `/api/storage/transfers/${transfer.id}/cancel`);
    expect(cancel.status).toBe(200);
    const ended = await waitForTransfer(storage, transfer.id);
    expect(ended.state).toBe('cancelled');
    expect(existsSync(path.join(targetRoot, 'cancelled.bin'))).toBe(false);
    expect(readdirSync(targetRoot).filter((name) => name.startsWith('.svc-tmp-'))).toEqual([]);
    expect((await storage.api('POST', `/api/storage/transfers/${transfer.id}/cancel`)).status).toBe(409);

    const retry = await storage.api('POST', `/api/storage/transfers/${transfer.id}/retry`);
    expect(retry.status).toBe(202);
    expect(retry.json<Transfer>()).toMatchObject({ state: 'queued', attempt: 2 });
    // Quicker now: lift the limit by cancelling again is not possible, so wait for the slow copy.
    const again = await waitForTransfer(storage, transfer.id, 30_000);
    expect(again.state).toBe('succeeded');
    expect(readFileSync(path.join(targetRoot, 'cancelled.bin')).equals(big)).toBe(true);
    expect((await storage.api('POST', `/api/storage/transfers/${transfer.id}/retry`)).status).toBe(409);
  });

  it('moves within a mount in one step and across mounts only after the copy is in place', async () => {
    mkdirSync(path.join(sourceRoot, 'Album'));
    writeFileSync(path.join(sourceRoot, 'Album', '01.flac'), 'one');
    writeFileSync(path.join(sourceRoot, 'Album', '02.flac'), 'two');
    const rename = await start('move', { path: 'Album', targetPath: 'Album 2' });
    expect((await waitForTransfer(storage, rename.id)).state).toBe('succeeded');
    expect(readdirSync(path.join(sourceRoot, 'Album 2')).sort()).toEqual(['01.flac', '02.flac']);
    expect(existsSync(path.join(sourceRoot, 'Album'))).toBe(false);

    const across = await start('move', { path: 'Album 2', targetMountId: target.id, targetPath: 'Album' });
    const done = await waitForTransfer(storage, across.id);
    expect(done).toMatchObject({ state: 'succeeded', files: { done: 2, total: 2 } });
    expect(readFileSync(path.join(targetRoot, 'Album', '02.flac'), 'utf8')).toBe('two');
    expect(existsSync(path.join(sourceRoot, 'Album 2'))).toBe(false);
  });

  it('refuses impossible transfers up front', async () => {
    const into = await storage.api('POST', `/api/storage/mounts/${source.id}/copy`, {
      body: { path: '', targetPath: 'inside' },
    });
    expect(into.status).toBe(400);
    const missing = await storage.api('POST', `/api/storage/mounts/${source.id}/copy`, {
      body: { path: 'nothing.bin', targetPath: 'x.bin' },
    });
    expect(missing.status).toBe(404);
    const exists = await storage.api('POST', `/api/storage/mounts/${source.id}/copy`, {
      body: { path: 'big.bin', targetMountId: target.id, targetPath: 'big copy.bin' },
    });
    expect(exists.status).toBe(409);
    const list = await storage.api('GET', '/api/storage/transfers?pageSize=2');
    const page = list.json<{ items: Transfer[]; total: number }>();
    expect(page.items).toHaveLength(2);
    expect(page.total).toBeGreaterThanOrEqual(5);
    const failedOnly = await storage.api('GET', '/api/storage/transfers?state=failed');
    expect(failedOnly.status).toBe(200);
  });

  it('reaches curl -N through a real gateway, event by event', async () => {
    const gateway = storage.install.url('gateway');
    await waitFor(async () => {
      const response = await request(`${gateway}/api/storage/ping`);
      await response.body.dump();
      return response.statusCode === 200 ? true : undefined;
    });
    const curl = spawn('curl', [
      '-sS',
      '-N',
      '-H',
      'Accept: text/event-stream',
      `${gateway}/api/storage/test/transfer-events`,
    ]);
    const reader = collect(curl.stdout);
    try {
      await waitFor(async () => (reader.heartbeats() > 0 ? true : undefined));
      const transfer = await start('copy', {
        path: 'big.bin',
        targetMountId: target.id,
        targetPath: 'via gateway.bin',
        maxBytesPerSecond: 3 * MB,
      });
      const finished = await waitForTransfer(storage, transfer.id);
      await waitFor(async () =>
        reader.events.some((e) => e.transfer.id === transfer.id && e.transfer.state === 'succeeded')
          ? true
          : undefined,
      );
      const progress = reader.events.filter(
        (e) => e.transfer.id === transfer.id && e.transfer.state === 'running' && e.transfer.bytes.done > 0,
      );
      expect(progress.length).toBeGreaterThanOrEqual(3);
      expect(progress[0]!.at).toBeLessThan(Date.parse(finished.finishedAt!) - 500);
    } finally {
      curl.kill('SIGTERM');
    }
    // The gateway's disconnect reaches the node, which drops the subscription.
    await waitFor(async () =>
      storage.component.services.transferEvents.subscribers === 0 ? true : undefined,
    );
  });
});
