import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRole } from '../../src/runtime/roles.js';
import { installBackends } from '../support/install-backends.js';
import { call, startPlaybackInstall, type Json } from '../support/playback-install.js';
import { startTestInstall, waitFor, type TestInstall } from '../support/runtime.js';

const [bundled] = installBackends();

describe('play-agent local settings', () => {
  const installs: { stop(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const install of installs) await install.stop();
    await bundled!.cleanup();
  });

  it('answers 503 on every client-protocol route when proto_a is not among its supported protocols', async () => {
    const install: TestInstall = await startTestInstall(await loadRole('play-agent'), bundled!.env, {
      env: { PLAY_AGENT_SUPPORTED_PROTOCOLS: 'PROTO_B' },
    });
    installs.push(install);
    const base = `http://127.0.0.1:${install.context.settings.playAgent.listenPort}`;
    for (const route of ['/System/Info/Public', '/emby/System/Info/Public', '/Users/Public']) {
      const answer = await call(base, 'GET', route);
      expect(answer.status, route).toBe(503);
      expect(answer.body).toMatchObject({ error: { code: 'PROTOCOL_NOT_SUPPORTED' } });
    }
    expect(
      (await call(base, 'POST', '/Users/AuthenticateByName', { body: { Username: 'a', Pw: 'b' } })).status,
    ).toBe(503);
    expect((await call(base, 'GET', '/health')).status).toBe(200);
  });

  it('limits each stream to the configured rate', { timeout: 240_000 }, async () => {
    // 1 Mbps: 125,000 bytes/s with a 4 KiB burst, so a file of a few tens of KB takes a measurable time.
    const env = await startPlaybackInstall(bundled!.env, { PLAY_AGENT_STREAM_RATE_LIMIT_MBPS: '1' });
    installs.push(env);
    await env.createUser('slow', 'slow-password-1');
    const login = await call(env.playAgent, 'POST', '/Users/AuthenticateByName', {
      headers: { 'x-emby-authorization': 'Emby Client="t", Device="t", DeviceId="t", Version="1"' },
      body: { Username: 'slow', Pw: 'slow-password-1' },
    });
    const token = String(login.body.AccessToken);
    const userId = String((login.body.User as Json).Id);
    const items = await waitFor(async () => {
      const list = await call(
        env.playAgent,
        'GET',
        `/Users/${userId}/Items?Recursive=true&IncludeItemTypes=Movie&Fields=MediaSources`,
        {
          headers: { 'x-emby-token': token },
        },
      );
      return list.status === 200 ? (list.body.Items as Json[]) : undefined;
    });
    const biggest = items
      .map((item) => ({ id: String(item.Id), size: Number((item.MediaSources as Json[])[0]!.Size) }))
      .sort((a, b) => b.size - a.size)[0]!;
    const started = performance.now();
    const answer = await request(`${env.playAgent}/Videos/${biggest.id}/stream?static=true&api_key=${token}`);
    const bytes = (await answer.body.arrayBuffer()).byteLength;
    const seconds = (performance.now() - started) / 1000;
    expect(bytes).toBe(biggest.size);
    const expected = (biggest.size - 4096) / 125_000;
    expect(seconds).toBeGreaterThan(expected * 0.85);
    expect(seconds).toBeLessThan(expected * 1.25 + 0.2);
  });
});
