import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StartupProbe } from '../../src/services/play-agent/metadata-probe/startup-probe.js';

const logger = pino({ level: 'silent' });

describe('startup probe', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'startup-probe-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reports ffprobe as present and working, with its version and the check time', async () => {
    const probe = new StartupProbe({
      nodeId: 'node-pa1',
      logger,
      now: () => Date.parse('2026-02-03T04:05:06Z'),
    });
    expect(probe.status()).toMatchObject({ result: 'pending', checkedAt: null, working: false });
    const status = await probe.check();
    expect(status).toMatchObject({
      nodeId: 'node-pa1',
      tool: 'ffprobe',
      result: 'ok',
      available: true,
      working: true,
      checkedAt: '2026-02-03T04:05:06.000Z',
      message: null,
    });
    expect(status.version).toMatch(/\S/);
    expect(probe.usable()).toBe(true);
  });

  it('tells a missing tool from one that is there but cannot read a file', async () => {
    const missing = new StartupProbe({ nodeId: 'node-pa1', logger, binary: join(dir, 'absent') });
    expect(await missing.check()).toMatchObject({ result: 'missing', available: false, version: null });
    expect(missing.usable()).toBe(false);

    // Answers -version like ffprobe, then fails on every file.
    const broken = join(dir, 'broken-ffprobe');
    await writeFile(
      broken,
      '#!/bin/sh\nif [ "$1" = "-version" ]; then echo "ffprobe version 9.9-test"; exit 0; fi\necho "no decoders" >&2\nexit 1\n',
    );
    await chmod(broken, 0o755);
    const failing = new StartupProbe({ nodeId: 'node-pa1', logger, binary: broken });
    expect(await failing.check()).toMatchObject({
      result: 'failed',
      available: true,
      working: false,
      version: '9.9-test',
      message: 'no decoders',
    });
  });
});
