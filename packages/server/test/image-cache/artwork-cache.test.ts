import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installBackends } from '../support/install-backends.js';
import { call, startPlaybackInstall, type Json, type PlaybackInstall } from '../support/playback-install.js';
import { waitFor } from '../support/runtime.js';

const SERVICE_TOKEN = 'svc_st_test_token_that_is_long_enough_0123456789';

async function sidecars(dir: string): Promise<Json[]> {
  const found: Json[] = [];
  for (const shard of await readdir(dir).catch(() => [] as string[])) {
    for (const name of await readdir(join(dir, shard))) {
      if (name.endsWith('.json'))
        found.push(JSON.parse(await readFile(join(dir, shard, name), 'utf8')) as Json);
    }
  }
  return found;
}

/**
 * The play-agent's artwork through its image cache, resized variants from the media service, the startup
 * probe through the console, and the media service's store of probed metadata, on one install (PGlite).
 */
describe('artwork cache, startup probe and metadata store on a whole install', () => {
  const backend = installBackends()[0]!;
  let env: PlaybackInstall;
  let heat: string;
  let heatUuid: string;
  let cacheDir: string;

  const image = async (path: string, headers: Record<string, string> = {}) => {
    const answer = await request(`${env.playAgent}${path}`, { headers });
    const body = Buffer.from(await answer.body.arrayBuffer());
    return { status: answer.statusCode, headers: answer.headers, body };
  };

  beforeAll(async () => {
    env = await startPlaybackInstall(backend.env);
    cacheDir = env.install.context.settings.playAgent.imageCacheDir;
    const listed = await env.admin('GET', `/api/media/libraries/${env.libraries.movies}/items?search=Heat`);
    heatUuid = String(((listed.body.items as Json[])[0] ?? {}).id);
    heat = heatUuid.replace(/-/g, '');
    expect(heatUuid).toMatch(/^[0-9a-f-]{36}$/);
  }, 300_000);

  afterAll(async () => {
    await env?.stop();
    await backend.cleanup();
  });

  it('answers artwork from its disk cache after the first request, with an ETag that revalidates', async () => {
    const first = await image(`/Items/${heat}/Images/Primary?tag=v1`);
    expect(first.status).toBe(200);
    expect(first.headers['x-svc-image-cache']).toBe('miss');
    expect(first.headers['content-type']).toBe('image/jpeg');
    expect(first.headers['cache-control']).toBe('public, max-age=86400');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^".+"$/);

    const second = await image(`/Items/${heat}/Images/Primary?tag=v1`);
    expect(second.headers['x-svc-image-cache']).toBe('hit');
    expect(second.body.equals(first.body)).toBe(true);
    expect(second.headers.etag).toBe(etag);

    const revalidated = await image(`/Items/${heat}/Images/Primary?tag=v1`, { 'if-none-match': etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
    expect(revalidated.headers.etag).toBe(etag);
    expect(revalidated.headers['cache-control']).toBe('public, max-age=86400');
    // Another ETag (an older image the player kept) gets the image again.
    const changed = await image(`/Items/${heat}/Images/Primary?tag=v1`, { 'if-none-match': '"older"' });
    expect(changed.status).toBe(200);
    expect(changed.body.equals(first.body)).toBe(true);
    // Not cached yet: a revalidation is a miss that answers 304 once the image is known to match.
    const uncached = await image(`/Items/${heat}/Images/Primary?tag=v2`, { 'if-none-match': etag });
    expect(uncached.status).toBe(304);
    expect(uncached.headers['x-svc-image-cache']).toBe('miss');

    const stored = (await sidecars(cacheDir)).filter((sidecar) => String(sidecar.key).includes('"v1"'));
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      contentType: 'image/jpeg',
      etag,
      itemId: heatUuid,
      size: first.body.length,
    });
  });

  it('caches each resized variant, made once by the media service', async () => {
    const originalBody = (await image(`/Items/${heat}/Images/Primary`)).body;
    const original = await sharp(originalBody).metadata();
    expect([original.width, original.height]).toEqual([120, 180]);
    const small = await image(`/Items/${heat}/Images/Primary?maxWidth=60&quality=80`);
    expect(small.status).toBe(200);
    expect(small.headers['x-svc-image-cache']).toBe('miss');
    const resized = await sharp(small.body).metadata();
    expect([resized.format, resized.width, resized.height]).toEqual(['jpeg', 60, 90]);
    const again = await image(`/Items/${heat}/Images/Primary?maxWidth=60&quality=80`);
    expect(again.headers['x-svc-image-cache']).toBe('hit');
    expect(again.body.equals(small.body)).toBe(true);
    // Never enlarged: an image inside the bounds comes as it is, not encoded again.
    const large = await image(`/Items/${heat}/Images/Primary?maxHeight=4000`);
    expect(large.body.equals(originalBody)).toBe(true);
    expect((await image(`/Items/${heat}/Images/Backdrop?maxWidth=0`)).status).toBe(200);
    expect((await image(`/Items/${heat}/Images/Logo`)).status).toBe(404);
  });

  it('reports the play-agent node startup probe through the console, and rechecks it', async () => {
    const nodeId = env.install.context.settings.playAgent.nodeId;
    const status = await waitFor(async () => {
      const answer = await env.admin('GET', `/api/config/nodes/${nodeId}/proxy/cache/startup-probe/status`);
      expect(answer.status, answer.text).toBe(200);
      return answer.body.result === 'pending' ? undefined : answer.body;
    }, 30_000);
    expect(status).toMatchObject({ nodeId, tool: 'ffprobe', result: 'ok', available: true, working: true });
    expect(String(status.version)).toMatch(/\S/);

    const recheck = await env.admin('POST', `/api/config/nodes/${nodeId}/proxy/cache/startup-probe/recheck`);
    expect(recheck.status, recheck.text).toBe(200);
    expect(Date.parse(String(recheck.body.checkedAt))).toBeGreaterThanOrEqual(
      Date.parse(String(status.checkedAt)),
    );

    const storageNode = env.install.context.settings.storageNodeId;
    const refused = await env.admin(
      'GET',
      `/api/config/nodes/${storageNode}/proxy/cache/startup-probe/status`,
    );
    expect(refused.status).toBe(404);
    const anonymous = await call(
      env.entrance,
      'GET',
      `/api/config/nodes/${nodeId}/proxy/cache/startup-probe/status`,
    );
    expect(anonymous.status).toBe(401);
  });

  it('keeps scanned metadata when a play-agent sends probed metadata for the same item', async () => {
    const media = env.install.url('media');
    const mediaInfo = { container: 'mov', durationSeconds: 1, bitrate: 1, size: 1, streams: [] };
    const answer = await call(media, 'PUT', `/api/media/internal/playback/items/${heatUuid}/media-info`, {
      headers: { 'x-svc-service-token': SERVICE_TOKEN },
      body: { size: 1, mediaInfo },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ stored: false });
    const missing = await call(
      media,
      'PUT',
      '/api/media/internal/playback/items/00000000-0000-4000-8000-000000000000/media-info',
      { headers: { 'x-svc-service-token': SERVICE_TOKEN }, body: { size: 1, mediaInfo } },
    );
    expect(missing.status).toBe(404);
  });
});
