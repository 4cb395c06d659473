import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import { badRequest, forbidden } from '../../../platform/http/errors.js';
import { readClientAuthorization } from '../stream/authorization.js';
import { announcedProduct } from './dialect.js';
import { userDto, type ServerIdentity } from './dto.js';
import { fromProtocolId, toProtocolId } from './ids.js';
import type { ProtocolRoutes } from './protocol.js';
import { signInFields } from './sign-in-request.js';

/** Emby clients send `Pw`; some older ones `Password` as well (or only). Field names are case-insensitive. */
const authenticateSchema = z.record(z.string(), z.unknown()).transform((body) => {
  const lower = new Map(Object.entries(body).map(([key, value]) => [key.toLowerCase(), value]));
  const text = (key: string) => {
    const value = lower.get(key);
    return typeof value === 'string' ? value : undefined;
  };
  return { username: text('username'), password: text('pw') ?? text('password') ?? '' };
});

/** Server information, sign-in and session capability routes. */
export function registerSystemRoutes(routes: ProtocolRoutes): void {
  const { deps } = routes;

  /** What /System/Info/Public and /System/Info share. */
  const publicInfo = (request: FastifyRequest, server: ServerIdentity) => {
    const address = deps.localAddress.of(request);
    return {
      LocalAddress: address,
      LocalAddresses: [address],
      RemoteAddresses: [],
      ServerName: server.serverName,
      ...announcedProduct(request, server),
      OperatingSystem: 'Linux',
      Id: server.serverId,
      StartupWizardCompleted: true,
    };
  };

  routes.anonymous('GET', ['/System/Info/Public'], async (request, reply) => {
    // Some proxies compress by content type; players must get this answer plain (spec: never compressed).
    void reply.header('cache-control', 'no-store, no-transform');
    return publicInfo(request, await deps.freshServer());
  });

  routes.signedIn('GET', ['/System/Info'], async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    return {
      ...publicInfo(request, deps.server()),
      OperatingSystemDisplayName: 'Linux',
      SystemUpdateLevel: 'Release',
      HasPendingRestart: false,
      IsShuttingDown: false,
      HasImageEnhancers: false,
      SupportsLibraryMonitor: false,
      SupportsLocalPortConfiguration: false,
      SupportsWakeServer: false,
      // A protocol field only: there is no WebSocket server.
      WebSocketPortNumber: deps.listenPort,
      CompletedInstallations: [],
      CanSelfRestart: false,
      CanSelfUpdate: false,
      CanLaunchWebBrowser: false,
      HttpServerPortNumber: deps.listenPort,
      SupportsHttps: false,
      HasUpdateAvailable: false,
      SupportsAutoRunAtStartup: false,
    };
  });

  routes.anonymous(['GET', 'POST'], ['/System/Ping'], async (request, reply) =>
    reply.type('text/plain; charset=utf-8').send(announcedProduct(request, deps.server()).ProductName),
  );

  // No list of accounts for strangers: players sign in by name.
  routes.anonymous('GET', ['/Users/Public'], async () => []);

  routes.anonymous('POST', ['/Users/AuthenticateByName'], async (request) => {
    const parsed = authenticateSchema.safeParse(signInFields(request));
    const username = parsed.success ? parsed.data.username?.trim() : undefined;
    if (!parsed.success || !username) throw badRequest('Username is required');
    if (username.length > 256 || parsed.data.password.length > 1024) throw badRequest('sign-in too long');
    const auth = readClientAuthorization(request.headers, request.query as Record<string, unknown>);
    const device = {
      client: auth.client,
      deviceName: auth.deviceName,
      deviceId: auth.deviceId,
      version: auth.version,
    };
    const answer = await deps.users.login({
      username,
      password: parsed.data.password,
      clientIp: request.clientIp,
      nodeId: deps.nodeId,
      device,
    });
    const server = deps.server();
    const userId = toProtocolId(answer.user.id);
    return {
      User: userDto(answer.user, server, (await deps.users.playbackPolicy(answer.user.id)).libraryAccess),
      SessionInfo: {
        PlayState: { CanSeek: false, IsPaused: false, IsMuted: false, RepeatMode: 'RepeatNone' },
        AdditionalUsers: [],
        RemoteEndPoint: request.clientIp,
        PlayableMediaTypes: ['Video', 'Audio'],
        Id: toProtocolId(answer.tokenId),
        ServerId: server.serverId,
        UserId: userId,
        UserName: answer.user.username,
        Client: device.client,
        LastActivityDate: new Date().toISOString(),
        DeviceName: device.deviceName,
        DeviceId: device.deviceId,
        ApplicationVersion: device.version,
        SupportedCommands: [],
        SupportsRemoteControl: false,
      },
      AccessToken: answer.accessToken,
      ServerId: server.serverId,
    };
  });

  routes.signedIn(
    'POST',
    ['/Sessions/Capabilities', '/Sessions/Capabilities/Full'],
    async (_request, reply) => reply.status(204).send(),
  );

  routes.signedIn('POST', ['/Sessions/Logout'], async (_request, reply, { player }) => {
    await deps.users.logout(player.tokenId);
    deps.tokens.forget(player.token);
    return reply.status(204).send();
  });

  const ownUser = async (userId: string) => {
    // Asked afresh (not the gate's cache): a policy cached here would delay a quota change made right after.
    const [user, policy] = await Promise.all([deps.users.user(userId), deps.users.playbackPolicy(userId)]);
    return userDto(user, deps.server(), policy.libraryAccess);
  };
  routes.signedIn('GET', ['/Users/Me'], async (_request, _reply, { player }) => ownUser(player.userId));

  routes.signedIn('GET', ['/Users/:userId'], async (request, _reply, { player }) => {
    const { userId } = request.params as { userId: string };
    if (fromProtocolId(userId) !== player.userId) throw forbidden('another account');
    return ownUser(player.userId);
  });

  routes.signedIn('GET', ['/DisplayPreferences/:id'], async (request) => {
    const { id } = request.params as { id: string };
    return {
      Id: id,
      SortBy: 'SortName',
      SortOrder: 'Ascending',
      RememberIndexing: false,
      RememberSorting: false,
      ShowBackdrop: true,
      ShowSidebar: false,
      CustomPrefs: {},
      Client: 'emby',
    };
  });

  routes.signedIn('GET', ['/Sessions'], async () => []);
}
