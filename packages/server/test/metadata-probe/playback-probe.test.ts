import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installBackends } from '../support/install-backends.js';
import { call, startPlaybackInstall, type Json, type PlaybackInstall } from '../support/playback-install.js';
import { waitFor } from '../support/runtime.js';

/**
 * Metadata completion during playback on a whole install (PGlite). The storage node starts without a
 * working ffprobe (a stand-in first on PATH fails), so the scan stores no technical metadata; the stand-in
 * then passes through to the real ffprobe, the play-agent's startup probe is rechecked, and playing the
 * file must fill in its streams in the background.
 */
describe('metadata completion during playback', () => {
  const backend = installBackends()[0]!;
  const realFfprobe = execFileSync('sh', ['-c', 'command -v ffprobe']).toString().trim();
  let env: PlaybackInstall;
  let bin: string;
  let savedPath: string | undefined;
  let heat: string;

  beforeAll(async () => {
    bin = await mkdtemp(join(tmpdir(), 'probe-bin-'));
    await writeFile(join(bin, 'ffprobe'), '#!/bin/sh\nexit 1\n');
    await chmod(join(bin, 'ffprobe'), 0o755);
    savedPath = process.env.PATH;
    process.env.PATH = `${bin}:${savedPath ?? ''}`;
    env = await startPlaybackInstall(backend.env);
    const listed = await env.admin('GET', `/api/media/libraries/${env.libraries.movies}/items?search=Heat`);
    heat = String(((listed.body.items as Json[])[0] ?? {}).id);
    await writeFile(join(bin, 'ffprobe'), `#!/bin/sh\nexec '${realFfprobe}' "$@"\n`);
  }, 300_000);

  afterAll(async () => {
    process.env.PATH = savedPath;
    await env?.stop();
    await backend.cleanup();
    await rm(bin, { recursive: true, force: true });
  });

  it('probes a played file without metadata in the background and stores its streams', async () => {
    const detail = await env.admin('GET', `/api/media/items/${heat}`);
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.mediaInfo).toBeNull();

    const nodeId = env.install.context.settings.playAgent.nodeId;
    const recheck = await env.admin('POST', `/api/config/nodes/${nodeId}/proxy/cache/startup-probe/recheck`);
    expect(recheck.body).toMatchObject({ result: 'ok', working: true });

    const signIn = await call(env.playAgent, 'POST', '/emby/Users/AuthenticateByName', {
      headers: { 'x-emby-authorization': 'MediaBrowser Client="Emby for Android", DeviceId="dev-probe-1"' },
      body: { Username: 'root', Pw: 'root-password-1' },
    });
    expect(signIn.status, signIn.text).toBe(200);
    const token = String(signIn.body.AccessToken);
    const started = Date.now();
    const stream = await request(
      `${env.playAgent}/Videos/${heat.replace(/-/g, '')}/stream?static=true&api_key=${token}`,
      { headers: { range: 'bytes=0-' } },
    );
    expect(stream.statusCode).toBe(206);
    await stream.body.dump();

    const info = await waitFor(async () => {
      const answer = await env.admin('GET', `/api/media/items/${heat}`);
      return answer.body.mediaInfo ? (answer.body.mediaInfo as Json) : undefined;
    }, 60_000);
    // The default start delay (5 s) passed before the probe ran.
    expect(Date.now() - started).toBeGreaterThanOrEqual(5_000);
    expect((info.streams as Json[]).map((s) => s.type).sort()).toEqual(['audio', 'video']);
    expect(Number(info.durationSeconds)).toBeGreaterThan(0);
  });
});
