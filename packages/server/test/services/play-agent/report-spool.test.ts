import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ActivityEvent } from '@svc/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { ReportSpool } from '../../../src/services/play-agent/reporting/report-spool.js';

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-spool-'));
  folders.push(dir);
  return dir;
}

function stopEvent(): ActivityEvent {
  return {
    eventId: randomUUID(),
    userId: '11111111-1111-4111-8111-111111111111',
    eventType: 'stop',
    occurredAt: new Date().toISOString(),
    sessionId: 's-1',
    clientIp: '10.0.0.1',
    userAgent: 'test',
    mediaId: 'm-1',
    mediaType: 'movie',
    mediaName: 'Movie',
    seriesName: null,
    durationMs: 1000,
    bytesDelta: 4096,
    positionSec: null,
    runtimeSec: null,
    nodeId: 'node-1',
    endpointId: null,
    client: '',
    deviceName: '',
    deviceId: '',
    playMethod: 'DirectStream',
    result: 'interrupted',
    reason: 'the play-agent stopped',
    extras: {},
  };
}

describe('pending playback reports kept across a stop', () => {
  it('keeps events and traffic in the node folder, hands them back once, then nothing', async () => {
    const base = await folder();
    const spool = ReportSpool.forNode(base, 'node-local-play-agent');
    const reports = {
      events: [stopEvent()],
      usage: [{ route: { userId: '11111111-1111-4111-8111-111111111111', endpointId: null }, bytes: 4096 }],
    };
    await spool.save(reports);
    expect(spool.path).toBe(path.join(base, 'play-agent', 'pending-reports-node-local-play-agent.json'));
    // Only the file itself: the temporary file was renamed into place.
    expect(await readdir(path.dirname(spool.path))).toEqual([path.basename(spool.path)]);
    expect(await spool.take()).toEqual(reports);
    expect(await spool.take()).toBeNull();
  });

  it('writes nothing when nothing is left', async () => {
    const base = await folder();
    const spool = ReportSpool.forNode(base, 'n1');
    await spool.save({ events: [], usage: [] });
    expect(await spool.take()).toBeNull();
  });

  it('sets a damaged file aside instead of dropping it, and says why', async () => {
    const base = await folder();
    const spool = ReportSpool.forNode(base, 'n1');
    await spool.save({ events: [stopEvent()], usage: [] });
    await writeFile(spool.path, '{"events": [ {"eventId": 1');
    await expect(spool.take()).rejects.toThrow(/set aside/);
    const left = await readdir(path.dirname(spool.path));
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^pending-reports-n1\.json\.damaged-\d+$/);
    expect(await readFile(path.join(path.dirname(spool.path), left[0]!), 'utf8')).toContain('eventId');
    expect(await spool.take()).toBeNull();
  });
});
