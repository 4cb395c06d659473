import {
  Jellyfin,
  MINIMUM_VERSION,
  ProductNameIssue,
  RecommendedServerInfoScore,
  VersionUnsupportedIssue,
} from '@jellyfin/sdk';
import {
  getLibraryApi,
  getSystemApi,
  getAuthenticationApi,
  getBrandingApi,
  getUserViewApi,
} from '@jellyfin/sdk/lib/utils/api/index.js';
import { compareVersions } from '@jellyfin/sdk/lib/utils/versioning.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installBackends } from '../support/install-backends.js';
import { call, startPlaybackInstall, type Json, type PlaybackInstall } from '../support/playback-install.js';
import { waitFor } from '../support/runtime.js';

/** The server version the apps built on the Kotlin SDK 1.8 (Android, Android TV, Findroid) require. */
const KOTLIN_SDK_MINIMUM = '10.11.0';
/** Emby's connection manager refuses servers below its minimum (4.1.1) and above 8.0. */
const EMBY_RANGE = ['4.1.1', '8.0'] as const;

const EMBY_THEATER =
  'MediaBrowser Client="Emby Theater", Device="Living%20Room", DeviceId="dev-dialect-1", Version="3.0.20"';
const SWIFTFIN = 'MediaBrowser DeviceId=swift-1, Device=iPhone, Client=Swiftfin iOS, Version=1.3.0';

interface PublicInfo extends Json {
  ProductName: string;
  Version: string;
  ServerName: string;
  Id: string;
  StartupWizardCompleted: boolean;
}

const inEmbyRange = (version: string) =>
  compareVersions(version, EMBY_RANGE[0]) >= 0 && compareVersions(version, EMBY_RANGE[1]) <= 0;

/**
 * Both client families against a real play-agent: Jellyfin apps (their SDK's own discovery, sign-in and
 * browse; the bare request of jellyfin-web; Swiftfin's header) get the Jellyfin answer, Emby apps (the
 * /emby prefix, X-Emby-Authorization, Emby's query values, `Authorization: Emby`) the Emby one.
 */
describe.each(installBackends())(
  'the play-agent answers each client family in its dialect on $label',
  (backend) => {
    let env: PlaybackInstall;

    beforeAll(async () => {
      env = await startPlaybackInstall(backend.env);
      await env.createUser('dialect', 'dialect-password-1');
    }, 240_000);

    afterAll(async () => {
      await env?.stop();
      await backend.cleanup();
    });

    const publicInfo = async (route: string, headers: Record<string, string> = {}) => {
      const answer = await call<PublicInfo>(env.playAgent, 'GET', route, { headers });
      expect(answer.status, answer.text).toBe(200);
      return answer.body;
    };

    const waitForName = (route: string, name: string) =>
      waitFor(async () => {
        const info = await publicInfo(route);
        return info.ServerName === name ? info : undefined;
      }, 3_000);

    it("is recommended by the Jellyfin SDK's discovery and lets the SDK sign in and browse", async () => {
      const jellyfin = new Jellyfin({
        clientInfo: { name: 'Jellyfin Web', version: '10.11.0' },
        deviceInfo: { name: 'Firefox', id: 'sdk-dialect-1' },
      });
      const candidates = await jellyfin.discovery.getRecommendedServerCandidates(env.playAgent);
      expect(candidates).toHaveLength(1);
      const [candidate] = candidates;
      expect(candidate!.issues.filter((issue) => issue instanceof ProductNameIssue)).toEqual([]);
      expect(candidate!.issues.filter((issue) => issue instanceof VersionUnsupportedIssue)).toEqual([]);
      expect(candidate!.score).toBeGreaterThanOrEqual(RecommendedServerInfoScore.GOOD);
      const best = jellyfin.discovery.findBestServer(candidates);
      expect(best?.address.replace(/\/$/, '')).toBe(env.playAgent);
      expect(best!.systemInfo).toMatchObject({
        ProductName: 'Jellyfin Server',
        ServerName: 'SVC Media',
        StartupWizardCompleted: true,
      });
      expect(best!.systemInfo!.Id).toMatch(/^[0-9a-f]{32}$/);
      expect(compareVersions(best!.systemInfo!.Version!, KOTLIN_SDK_MINIMUM)).toBeGreaterThanOrEqual(0);

      const api = jellyfin.createApi(best!.address);
      // The sign-in screens (Android TV, Findroid, jellyfin-web) ask for branding and Quick Connect first.
      expect((await getBrandingApi(api).getBrandingOptions()).data).toMatchObject({ LoginDisclaimer: '' });
      expect((await getAuthenticationApi(api).getQuickConnectEnabled()).data).toBe(false);
      const auth = await getAuthenticationApi(api).authenticateUserByName({
        authenticateUserByName: { Username: 'dialect', Pw: 'dialect-password-1' },
      });
      expect(auth.data.ServerId).toBe(best!.systemInfo!.Id);
      expect(auth.data.SessionInfo).toMatchObject({ Client: 'Jellyfin Web', DeviceId: 'sdk-dialect-1' });
      expect(api.accessToken).toMatch(/^svc_ply_/);
      const userId = auth.data.User!.Id!;

      const system = await getSystemApi(api).getSystemInfo();
      expect(system.data).toMatchObject({ ProductName: 'Jellyfin Server', Id: best!.systemInfo!.Id });
      const views = await getUserViewApi(api).getUserViews({ userId });
      const movies = views.data.Items!.find((view) => view.Name === 'Movies')!;
      expect(movies.CollectionType).toBe('movies');
      const items = await getLibraryApi(api).getItems({ userId, parentId: movies.Id!, recursive: true });
      expect(items.data.Items!.map((item) => item.Name).sort()).toEqual(
        env.fixtures.movies.map((movie) => movie.title).sort(),
      );
    });

    it('answers the Jellyfin forms that carry no SDK header: jellyfin-web, Swiftfin, /jellyfin', async () => {
      // jellyfin-web's connection manager asks with no header at all and checks only the version.
      const web = await publicInfo('/System/Info/Public');
      expect(compareVersions(web.Version, MINIMUM_VERSION)).toBeGreaterThanOrEqual(0);
      expect(web).toMatchObject({ ProductName: 'Jellyfin Server', StartupWizardCompleted: true });
      expect(await publicInfo('/System/Info/Public', { authorization: SWIFTFIN })).toEqual(web);
      expect(await publicInfo('/jellyfin/System/Info/Public')).toEqual(web);
      // Jellyfin's ping names the product too.
      expect((await call(env.playAgent, 'GET', '/System/Ping')).text).toBe('Jellyfin Server');
    });

    it('still gives Emby apps the Emby answer, sign-in and browse', async () => {
      const embyForms: [string, Record<string, string>][] = [
        ['/emby/system/info/public', { 'x-emby-authorization': EMBY_THEATER }],
        ['/emby/System/Info/Public', {}],
        ['/mediabrowser/System/Info/Public', {}],
        // Emby web (4.4.0.21 and later) sends its values as query parameters.
        [
          '/System/Info/Public?X-Emby-Client=Emby%20Web&X-Emby-Device-Id=web-1&X-Emby-Client-Version=4.8.0',
          {},
        ],
        ['/System/Info/Public', { 'x-emby-authorization': EMBY_THEATER }],
        // Emby for Kodi: `Authorization: Emby …`, unquoted.
        [
          '/System/Info/Public',
          { authorization: 'Emby Client=Emby for Kodi,Device=Kodi,DeviceId=kodi-1,Version=11' },
        ],
      ];
      const jellyfinId = (await publicInfo('/System/Info/Public')).Id;
      for (const [route, headers] of embyForms) {
        const info = await publicInfo(route, headers);
        expect(info, route).toMatchObject({
          ProductName: 'SVC Media Server',
          ServerName: 'SVC Media',
          Id: jellyfinId,
        });
        expect(inEmbyRange(info.Version), `${route}: ${info.Version}`).toBe(true);
      }
      expect((await call(env.playAgent, 'GET', '/emby/System/Ping')).text).toBe('SVC Media Server');

      const signIn = await call(env.playAgent, 'POST', '/emby/Users/AuthenticateByName', {
        headers: { 'x-emby-authorization': EMBY_THEATER },
        body: { Username: 'dialect', Pw: 'dialect-password-1' },
      });
      expect(signIn.status, signIn.text).toBe(200);
      expect(signIn.body.SessionInfo).toMatchObject({ Client: 'Emby Theater', DeviceName: 'Living Room' });
      const token = String(signIn.body.AccessToken);
      const userId = String((signIn.body.User as Json).Id);
      const system = await call(env.playAgent, 'GET', '/emby/System/Info', {
        headers: { 'x-emby-token': token },
      });
      expect(system.body).toMatchObject({ ProductName: 'SVC Media Server', Id: jellyfinId });
      const views = await call(env.playAgent, 'GET', `/emby/Users/${userId}/Views`, {
        headers: { 'x-emby-authorization': `${EMBY_THEATER}, Token="${token}"` },
      });
      expect((views.body.Items as Json[]).map((view) => view.Name).sort()).toEqual(['Movies', 'Shows']);
    });

    it('signs in Emby for Kodi, which sends name and password as query parameters', async () => {
      const signIn = await call(
        env.playAgent,
        'POST',
        '/emby/Users/AuthenticateByName?username=dialect&pw=dialect-password-1',
        {
          headers: {
            authorization: 'Emby Client=Emby for Kodi,Device=Kodi,DeviceId=kodi-1,Version=11',
            'content-type': 'application/json',
          },
        },
      );
      expect(signIn.status, signIn.text).toBe(200);
      expect(signIn.body.SessionInfo).toMatchObject({ Client: 'Emby for Kodi', DeviceId: 'kodi-1' });
      const wrong = await call(
        env.playAgent,
        'POST',
        '/emby/Users/AuthenticateByName?username=dialect&pw=nope',
        {
          headers: { authorization: 'Emby Client=Emby for Kodi,Device=Kodi,DeviceId=kodi-1,Version=11' },
        },
      );
      expect(wrong.status).toBe(401);
    });

    it('keeps the Jellyfin product name fixed while the server name follows the setting', async () => {
      await env.admin('PUT', '/api/media/protocol/proto_a/settings', {
        serverName: 'Den',
        productName: 'Den Media',
      });
      const emby = await waitForName('/emby/System/Info/Public', 'Den');
      expect(emby.ProductName).toBe('Den Media');
      expect(await publicInfo('/System/Info/Public')).toMatchObject({
        ServerName: 'Den',
        ProductName: 'Jellyfin Server',
      });
      await env.admin('PUT', '/api/media/protocol/proto_a/settings', {
        serverName: 'SVC Media',
        productName: 'SVC Media Server',
      });
      await waitForName('/emby/System/Info/Public', 'SVC Media');
    });
  },
);
