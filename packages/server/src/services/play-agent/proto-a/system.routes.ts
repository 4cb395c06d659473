import type { FastifyRequest } from 'fastify';
import { badRequest, forbidden } from '../../../platform/http/errors.js';
import { readClientAuthorization } from '../stream/authorization.js';
import { announcedProduct } from './dialect.js';
import { userDto, type ServerIdentity } from './dto.js';
import { fromProtocolId, toProtocolId } from './ids.js';
import { protoA } from './declarations.js';
import type { ProtocolRoutes } from './protocol.js';
import { signInFields } from './sign-in-request.js';

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

  routes.anonymous(protoA.GetPublicSystemInfo, async (request, reply) => {
    // Some proxies compress by content type; players must get this answer plain (spec: never compressed).
    void reply.header('cache-control', 'no-store, no-transform');
    return publicInfo(request, await deps.freshServer());
  });

  routes.signedIn(protoA.GetSystemInfo, async (request, reply) => {
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

  routes.anonymous(protoA.PingSystem, async (request, reply) =>
    reply.type('text/plain; charset=utf-8').send(announcedProduct(request, deps.server()).ProductName),
  );

  // No list of accounts for strangers: players sign in by name.
  routes.anonymous(protoA.GetPublicUsers, async () => []);

  routes.anonymous(protoA.AuthenticateUserByName, async (request) => {
    const fields = signInFields(request);
    const username = fields.Username?.trim();
    // Emby clients send `Pw`; some older ones `Password` as well, or only.
    const password = fields.Pw ?? fields.Password ?? '';
    if (!username) throw badRequest('Username is required');
    if (username.length > 256 || password.length > 1024) throw badRequest('sign-in too long');
    const auth = readClientAuthorization(request.headers, request.query);
    const device = {
      client: auth.client,
      deviceName: auth.deviceName,
      deviceId: auth.deviceId,
      version: auth.version,
    };
    const answer = await deps.users.login({
      username,
      password,
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

  routes.signedIn(protoA.PostCapabilities, async (_request, reply) => reply.status(204).send());

  routes.signedIn(protoA.Logout, async (_request, reply, { player }) => {
    await deps.users.logout(player.tokenId);
    deps.tokens.forget(player.token);
    return reply.status(204).send();
  });

  const ownUser = async (userId: string) => {
    // Asked afresh (not the gate's cache): a policy cached here would delay a quota change made right after.
    const [user, policy] = await Promise.all([deps.users.user(userId), deps.users.playbackPolicy(userId)]);
    return userDto(user, deps.server(), policy.libraryAccess);
  };
  routes.signedIn(protoA.GetCurrentUser, async (_request, _reply, { player }) => ownUser(player.userId));

  routes.signedIn(protoA.GetUser, async (request, _reply, { player }) => {
    const { userId } = request.params as { userId: string };
    if (fromProtocolId(userId) !== player.userId) throw forbidden('another account');
    return ownUser(player.userId);
  });

  routes.signedIn(protoA.GetDisplayPreferences, async (request) => {
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

  routes.signedIn(protoA.GetSessions, async () => []);
}
