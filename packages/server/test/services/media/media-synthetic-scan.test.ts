import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Library, LibraryScanResponse, ListItemsResponse, MediaItemDetail } from '@svc/contracts';
import { installBackends } from '../../support/install-backends.js';
import { startMediaTestEnv, type MediaTestEnv } from './support/media-env.js';

describe.each(installBackends())('scanning the synthetic tree of 10,000 files on $label', (backend) => {
  let env: MediaTestEnv;
  let library: Library;

  beforeAll(async () => {
    // The real storage node over the synthetic tree, started with an ffprobe that does not exist: its
    // 6,000 videos are empty files, and the scan must report the missing tool (MediaTestEnvOptions).
    env = await startMediaTestEnv(backend, { tree: 'synthetic' });
    // The provider has nothing to say about synthetic titles; leave it out of this one.
    await env.api('PUT', '/api/media/settings/metadata-provider', {
      body: { enabled: false, baseUrl: env.tmdb.baseUrl },
    });
    library = await env.createLibrary('Synthetic', 'mixed', '/');
  });
  afterAll(async () => {
    await env?.stop();
  });

  it('scans in the background, answering requests meanwhile, and finds every item', async () => {
    const { synthetic } = env.fixtures;
    await env.startScan(library.id, 'full');

    const observed: LibraryScanResponse[] = [];
    let slowest = 0;
    for (;;) {
      const at = Date.now();
      const [state, list] = await Promise.all([
        env.api<LibraryScanResponse>('GET', `/api/media/libraries/${library.id}/scan`),
        env.api('GET', '/api/media/libraries'),
      ]);
      slowest = Math.max(slowest, Date.now() - at);
      expect(state.status).toBe(200);
      expect(list.status).toBe(200);
      observed.push(state.body);
      if (state.body.scan && ['succeeded', 'failed'].includes(state.body.scan.state)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const done = observed.at(-1)!.scan!;
    const videos =
      synthetic.movies + synthetic.series * synthetic.seasonsPerSeries * synthetic.episodesPerSeason;
    expect(done).toMatchObject({
      state: 'succeeded',
      filesTotal: videos,
      filesSeen: videos,
      filesSkipped: 0,
      itemsAdded: videos + synthetic.series + synthetic.series * synthetic.seasonsPerSeries,
      probeTools: [{ nodeId: env.storage.nodeId, reachable: true, available: false, version: null }],
    });
    // Progress was visible while it ran, and requests were answered all along (a generous bound: the
    // point is that a scan never holds requests until it ends).
    expect(observed.some((o) => o.scan?.state === 'running' && o.scan.filesSeen < o.scan.filesTotal)).toBe(
      true,
    );
    expect(slowest).toBeLessThan(5_000);

    const counts = (await env.api<Library>('GET', `/api/media/libraries/${library.id}`)).body.counts;
    expect(counts).toEqual({
      movies: synthetic.movies,
      series: synthetic.series,
      seasons: synthetic.series * synthetic.seasonsPerSeries,
      episodes: synthetic.series * synthetic.seasonsPerSeries * synthetic.episodesPerSeason,
    });

    const movie = await env.api<ListItemsResponse>(
      'GET',
      `/api/media/libraries/${library.id}/items?search=Title 17&kind=movie`,
    );
    expect(movie.body.items.map((item) => [item.title, item.year])).toContainEqual(['Title 17', 1967]);
    const episodes = await env.api<ListItemsResponse>(
      'GET',
      `/api/media/libraries/${library.id}/items?kind=episode&pageSize=1&sort=title`,
    );
    const episode = (await env.api<MediaItemDetail>('GET', `/api/media/items/${episodes.body.items[0]!.id}`))
      .body;
    expect(episode).toMatchObject({ title: 'Episode Name', mediaInfo: null });
    const seriesItem = (await env.api<MediaItemDetail>('GET', `/api/media/items/${episode.seriesId}`)).body;
    expect(seriesItem.title).toMatch(/^Series \d\d$/);
    expect(seriesItem.children).toHaveLength(synthetic.seasonsPerSeries);
  });

  it('rescans incrementally without changing anything', async () => {
    const started = await env.startScan(library.id, 'incremental');
    const done = await env.waitForScan(library.id, started.id, 120_000);
    const { synthetic } = env.fixtures;
    const videos =
      synthetic.movies + synthetic.series * synthetic.seasonsPerSeries * synthetic.episodesPerSeason;
    expect(done).toMatchObject({
      state: 'succeeded',
      filesSeen: videos,
      itemsAdded: 0,
      itemsUpdated: 0,
      itemsRemoved: 0,
    });
  });
});
