import { randomUUID } from 'node:crypto';
import { createConfigComponent } from '../../../../src/services/config/config.component.js';
import { createFrontendComponent } from '../../../../src/services/frontend/frontend.component.js';
import { createGatewayComponent } from '../../../../src/services/gateway/gateway.component.js';
import { mediaComponentFactory, type MediaParts } from '../../../../src/services/media/media.component.js';
import type { NewMediaEvent } from '../../../../src/services/media/events/media-events.repository.js';
import type { OutboundWebhookOptions } from '../../../../src/services/media/webhooks/outbound/outbound-webhook-tasks.js';
import { createStorageComponent } from '../../../../src/services/storage/storage.component.js';
import { createUserComponent } from '../../../../src/services/user/user.component.js';
import type { InstallBackend } from '../../../support/install-backends.js';
import { mediaFixtures } from '../../../support/media-fixtures.js';
import { call, type Answer } from '../../../support/playback-install.js';
import { startTestInstall, waitFor, type TestInstall } from '../../../support/runtime.js';

export interface WebhookInstall {
  install: TestInstall;
  parts: MediaParts;
  entrance: string;
  adminToken: string;
  /** Through the console entrance with the administrator's token (or another token, or none). */
  api<T = Record<string, unknown>>(
    method: string,
    route: string,
    body?: unknown,
    token?: string | null,
  ): Promise<Answer<T>>;
  libraries: { movies: string; shows: string };
  /** Scans a library through the API and waits for the end. */
  scan(libraryId: string): Promise<void>;
  /** Records a media event as a scan would (ready for delivery). */
  addEvent(libraryId: string, libraryName: string, fields?: Partial<NewMediaEvent>): Promise<string>;
  /** Runs the delivery task now (as the internal port's "run now" does). */
  deliverNow(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Config, user, media (with the given outbound webhook tuning), gateway, frontend and the storage node,
 * with an administrator signed in and two libraries (not scanned yet) on the fixture media.
 */
export async function startWebhookInstall(
  backend: InstallBackend,
  outboundWebhooks: OutboundWebhookOptions,
): Promise<WebhookInstall> {
  const fixtures = await mediaFixtures();
  let parts: MediaParts | undefined;
  const install = await startTestInstall(
    [
      createConfigComponent,
      createUserComponent,
      mediaComponentFactory({ expose: (exposed) => (parts = exposed), outboundWebhooks }),
      createGatewayComponent,
      createFrontendComponent,
      createStorageComponent,
    ],
    backend.env,
  );
  const stop = async () => {
    await install.stop();
    await backend.cleanup();
  };
  try {
    const entrance = install.url('frontend');
    await waitFor(
      async () => ((await call(entrance, 'GET', '/api/storage/ping')).status === 200 ? true : undefined),
      20_000,
    );
    const setup = await call(entrance, 'POST', '/api/auth/setup/admin', {
      body: { username: 'root', password: 'root-password-1' },
    });
    if (setup.status !== 201) throw new Error(`setup failed: ${setup.text}`);
    const login = await call(entrance, 'POST', '/api/auth/login', {
      body: { username: 'root', password: 'root-password-1', client: 'console' },
    });
    const adminToken = String(login.body.adminToken);
    const api = <T = Record<string, unknown>>(
      method: string,
      route: string,
      body?: unknown,
      token: string | null = adminToken,
    ) => call<T>(entrance, method, route, { headers: token ? { 'x-admin-token': token } : {}, body });

    const mount = await api('POST', '/api/storage/mounts', {
      name: 'fixtures',
      provider: 'local',
      config: { root: fixtures.library },
    });
    if (mount.status !== 201) throw new Error(`mount failed: ${mount.text}`);
    const nodeId = install.context.settings.storageNodeId;
    const library = async (name: string, type: string, path: string) => {
      const created = await api('POST', '/api/media/libraries', {
        name,
        type,
        sources: [{ nodeId, mountId: String(mount.body.id), path }],
        // The tests scan when they mean to (`scan`).
        scan: false,
      });
      if (created.status !== 201) throw new Error(`library failed: ${created.text}`);
      return String(created.body.id);
    };
    const libraries = {
      movies: await library('Movies', 'movies', '/Movies'),
      shows: await library('Shows', 'series', '/TV'),
    };
    const scheduler = install.context.schedulers.get('media')!;

    return {
      install,
      parts: parts!,
      entrance,
      adminToken,
      api,
      libraries,
      scan: async (libraryId) => {
        const started = await api<{ id: string }>('POST', `/api/media/libraries/${libraryId}/scan`, {
          mode: 'full',
        });
        if (started.status !== 202) throw new Error(`scan failed: ${started.text}`);
        await waitFor(
          async () => {
            const state = await api<{ scan: { state: string } | null }>(
              'GET',
              `/api/media/libraries/${libraryId}/scan`,
            );
            if (state.body.scan?.state === 'failed') throw new Error(`scan failed: ${state.text}`);
            return state.body.scan?.state === 'succeeded' ? true : undefined;
          },
          60_000,
          100,
        );
      },
      addEvent: async (libraryId, libraryName, fields = {}) => {
        const id = randomUUID();
        await parts!.events.insert(parts!.database.db, [
          {
            id,
            type: 'media.added',
            occurred_at: new Date(),
            scan_id: null,
            library_id: libraryId,
            library_name: libraryName,
            media_id: randomUUID(),
            media_type: 'movie',
            media_title: 'Inserted',
            media_original_title: null,
            media_year: 2001,
            media_release_date: null,
            media_tmdb_id: null,
            media_imdb_id: null,
            media_poster_path: null,
            media_poster_url: null,
            media_overview: null,
            episode_season_number: null,
            episode_episode_number: null,
            episode_name: null,
            item_source_item_id: randomUUID(),
            item_name: 'Inserted (2001).mkv',
            summary_new_titles: 1,
            summary_new_items: 1,
            delivered_at: null,
            ...fields,
          },
        ]);
        return id;
      },
      deliverNow: async () => {
        await scheduler.runNow('outbound-webhook.deliver');
      },
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
