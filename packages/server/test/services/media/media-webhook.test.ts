import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  InboundWebhookResponse,
  Library,
  ListItemsResponse,
  WebhookTokenRegenerated,
  WebhookTokenStatus,
} from '@svc/contracts';
import { installBackends } from '../../support/install-backends.js';
import { SETTINGS_ONLY, startMediaTestEnv, type MediaTestEnv } from './support/media-env.js';

const anyString = expect.any(String) as unknown as string;

interface ErrorAnswer {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
}

describe.each(installBackends())('inbound webhook on $label', (backend) => {
  let env: MediaTestEnv;
  let token: string;
  const libraries: Record<'movies' | 'series' | 'mixed', Library> = {} as never;

  const scanRows = async () =>
    Number(
      (
        await env.parts.database.db
          .selectFrom('media_scans')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .executeTakeFirstOrThrow()
      ).count,
    );
  const titles = async (library: Library) =>
    (
      await env.api<ListItemsResponse>('GET', `/api/media/libraries/${library.id}/items?pageSize=200`)
    ).body.items
      .map((item) => item.title)
      .sort();
  const send = (body: unknown, tokenToUse = token) =>
    env.api<InboundWebhookResponse & ErrorAnswer>('POST', `/api/webhook/${encodeURIComponent(tokenToUse)}`, {
      body,
      identity: null,
    });
  const finish = async (answer: InboundWebhookResponse) => {
    for (const task of answer.tasks) {
      const scan = await env.waitForScan(task.libraryId, task.id);
      expect(scan.state, task.path).toBe('succeeded');
    }
  };

  beforeAll(async () => {
    env = await startMediaTestEnv(backend);
    libraries.movies = await env.createLibrary('Movies', 'movies', '/Movies');
    libraries.series = await env.createLibrary('Series', 'series', '/TV');
    libraries.mixed = await env.createLibrary('Everything', 'mixed', '/');
  });
  afterAll(async () => {
    await env?.stop();
  });

  it('has no token at first, and refuses every webhook call then', async () => {
    expect((await env.api<WebhookTokenStatus>('GET', '/api/media/webhook/token')).body).toEqual({
      exists: false,
      masked: null,
      createdAt: null,
    });
    const refused = await send({ data: ['/Movies/Heat (1995)'] }, 'svc_wh_guess');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
  });

  it('regenerates the token: plain once, masked in listings, stored as SHA-256, the old one invalid at once', async () => {
    const first = await env.api<WebhookTokenRegenerated>('POST', '/api/media/webhook/token/regenerate');
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.body.token).toMatch(/^svc_wh_[A-Za-z0-9_-]{43}$/);
    expect(first.body.masked).toBe(`svc_wh_****${first.body.token.slice(-4)}`);

    const listed = await env.api<WebhookTokenStatus>('GET', '/api/media/webhook/token');
    expect(listed.body).toEqual({ exists: true, masked: first.body.masked, createdAt: first.body.createdAt });
    expect(listed.raw.toString()).not.toContain(first.body.token);
    const stored = await env.parts.database.db
      .selectFrom('system_settings')
      .select('value')
      .where('key', '=', 'webhook.inbound.token')
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(stored.value)).not.toContain(first.body.token.slice(7));
    expect((stored.value as { hash: string }).hash).toBe(
      createHash('sha256').update(first.body.token).digest('hex'),
    );

    const accepted = await send({ data: ['/Music/nothing.flac'] }, first.body.token);
    expect(accepted.status).toBe(202);

    const second = await env.api<WebhookTokenRegenerated>('POST', '/api/media/webhook/token/regenerate');
    expect(second.body.token).not.toBe(first.body.token);
    const old = await send({ data: ['/Music/nothing.flac'] }, first.body.token);
    expect(old.status).toBe(403);
    expect(old.body.error).toMatchObject({ code: 'FORBIDDEN', message: anyString });
    expect((await send({ data: ['/Music/nothing.flac'] }, second.body.token)).status).toBe(202);
    token = second.body.token;

    for (const identity of [{ ...SETTINGS_ONLY, permissions: ['library' as const] }, null]) {
      expect((await env.api('GET', '/api/media/webhook/token', { identity })).status).toBeGreaterThanOrEqual(
        401,
      );
      expect(
        (await env.api('POST', '/api/media/webhook/token/regenerate', { identity })).status,
      ).toBeGreaterThanOrEqual(401);
    }
    expect((await env.api<WebhookTokenStatus>('GET', '/api/media/webhook/token')).body.masked).toBe(
      second.body.masked,
    );
  });

  it('refuses bad requests with 400 and the error body, queueing nothing', async () => {
    const before = await scanRows();
    const bad: [unknown, string][] = [
      [{}, '/data'],
      [{ data: [] }, '/data'],
      [{ data: [''] }, '/data/0'],
      [{ data: '/Movies/Heat (1995)' }, '/data'],
      [{ data: [42] }, '/data/0'],
      [{ data: ['/Movies/../etc/passwd'] }, '/data/0'],
      [{ data: ['/Movies/Heat (1995)'], replace_path: 'mnt*' }, '/replace_path'],
      // Category roots: a source root, a folder above one, the mount root, a top-level folder of a root source.
      [{ data: ['/Movies'] }, '/data/0'],
      [{ data: ['/TV/'] }, '/data/0'],
      [{ data: ['/'] }, '/data/0'],
      [{ data: ['/Documentaries'] }, '/data/0'],
      [{ data: ['/mnt2/Movies'], replace_path: '/mnt*/' }, '/data/0'],
      [{ data: ['/Movies/Heat (1995)', '/Movies'] }, '/data/1'],
    ];
    for (const [body, field] of bad) {
      const answer = await send(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_FAILED');
      expect(
        answer.body.error.details?.map((d) => d.path),
        JSON.stringify(body),
      ).toContain(field);
    }
    const noBody = await env.api<ErrorAnswer>('GET', `/api/webhook/${token}`, { identity: null });
    expect(noBody.status).toBe(400);
    expect(await scanRows()).toBe(before);
  });

  it('maps paths with replace_path and gives every source containing a path its own task', async () => {
    const answer = await send({
      data: ['/mnt1/Movies/Heat (1995)/Heat (1995).mp4', '/Music/song.flac'],
      replace_path: '/mnt*/',
    });
    expect(answer.status).toBe(202);
    expect(answer.body.tasks.map((task) => [task.libraryName, task.path, task.deduplicated]).sort()).toEqual([
      ['Everything', '/Movies/Heat (1995)/Heat (1995).mp4', false],
      ['Movies', '/Movies/Heat (1995)/Heat (1995).mp4', false],
    ]);
    expect(answer.body.ignored).toEqual([{ path: '/Music/song.flac', reason: 'not a media file or folder' }]);
    await finish(answer.body);
    expect(await titles(libraries.movies)).toEqual(['Heat']);
    expect(await titles(libraries.mixed)).toEqual(['Heat']);
    expect(await titles(libraries.series)).toEqual([]);

    const scanState = await env.api<{ scan: { trigger: string; scope: { path: string } } }>(
      'GET',
      `/api/media/libraries/${libraries.movies.id}/scan`,
    );
    expect(scanState.body.scan).toMatchObject({
      trigger: 'webhook',
      scope: { path: '/Movies/Heat (1995)/Heat (1995).mp4' },
    });
  });

  it('takes data from repeated or JSON-encoded query parameters (GET and POST), files and series folders', async () => {
    const query = new URLSearchParams();
    query.append('data', '/TV/Show (2020)');
    query.append('data', '/Movies/The.Matrix.1999.1080p.BluRay.x264-GRP.mp4');
    const viaGet = await env.api<InboundWebhookResponse>('GET', `/api/webhook/${token}?${query.toString()}`, {
      identity: null,
    });
    expect(viaGet.status).toBe(202);
    expect(viaGet.body.tasks.map((task) => `${task.libraryName}:${task.path}`).sort()).toEqual([
      'Everything:/Movies/The.Matrix.1999.1080p.BluRay.x264-GRP.mp4',
      'Everything:/TV/Show (2020)',
      'Movies:/Movies/The.Matrix.1999.1080p.BluRay.x264-GRP.mp4',
      'Series:/TV/Show (2020)',
    ]);
    await finish(viaGet.body);

    const encoded = new URLSearchParams({
      data: JSON.stringify(['/Movies/Arrival (2016) [imdbid-tt2543164]/']),
    });
    const viaPost = await env.api<InboundWebhookResponse>(
      'POST',
      `/api/webhook/${token}?${encoded.toString()}`,
      { identity: null },
    );
    expect(viaPost.status).toBe(202);
    expect(viaPost.body.tasks.map((task) => task.path)).toEqual([
      '/Movies/Arrival (2016) [imdbid-tt2543164]',
      '/Movies/Arrival (2016) [imdbid-tt2543164]',
    ]);
    await finish(viaPost.body);

    expect(await titles(libraries.movies)).toEqual(['Arrival', 'Heat', 'The Matrix']);
    expect(await titles(libraries.series)).toEqual(['Show']);
    expect(await titles(libraries.mixed)).toEqual(['Arrival', 'Heat', 'Show', 'The Matrix']);
    const episodes = await env.api<ListItemsResponse>(
      'GET',
      `/api/media/libraries/${libraries.series.id}/items?kind=episode`,
    );
    expect(episodes.body.total).toBe(
      env.fixtures.series[0]!.seasons.flatMap((season) => season.episodes).length,
    );
  });

  it('removes what a notice says is gone, and scrapes the folder of a changed sidecar', async () => {
    const matrix = '/Movies/The.Matrix.1999.1080p.BluRay.x264-GRP.mp4';
    await rm(path.join(env.mountRoot, ...matrix.split('/')));
    const removed = await send({ data: [matrix] });
    expect(removed.body.tasks).toHaveLength(2);
    await finish(removed.body);
    expect(await titles(libraries.movies)).toEqual(['Arrival', 'Heat']);
    expect(await titles(libraries.mixed)).toEqual(['Arrival', 'Heat', 'Show']);

    const sidecar = await send({ data: ['/Movies/Heat (1995)/movie.nfo'] });
    expect(sidecar.body.tasks.map((task) => task.path)).toEqual([
      '/Movies/Heat (1995)',
      '/Movies/Heat (1995)',
    ]);
    await finish(sidecar.body);
    expect(await titles(libraries.movies)).toEqual(['Arrival', 'Heat']);
  });

  it('ignores paths no library source contains', async () => {
    expect((await env.api('DELETE', `/api/media/libraries/${libraries.mixed.id}`)).status).toBe(204);
    const answer = await send({ data: ['/Music/Band/video.mkv', '/Movies/Heat (1995)'] });
    expect(answer.status).toBe(202);
    expect(answer.body.ignored).toEqual([
      { path: '/Music/Band/video.mkv', reason: 'no library source contains this path' },
    ]);
    expect(answer.body.tasks.map((task) => task.libraryName)).toEqual(['Movies']);
    await finish(answer.body);
  });
});
