import type { FastifyReply, FastifyRequest } from 'fastify';
import { endpoints, type PlaybackDevice } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { AppError, unauthorized } from '../../../platform/http/errors.js';
import type { Logger } from '../../../platform/logger.js';
import type { PlaybackGate } from '../access/playback-gate.js';
import type { Player, TokenResolver } from '../access/token-resolver.js';
import type { PlayContext, PlaySessions } from '../reporting/play-sessions.js';
import type { UsageMeter } from '../reporting/usage-meter.js';
import { readClientAuthorization } from '../stream/authorization.js';
import type { MediaClient } from '../upstream/media-client.js';
import type { UserClient } from '../upstream/user-client.js';
import type { ServerIdentity } from './dto.js';
import type { LocalAddress } from './local-address.js';
import type { ProtoADeclaration } from './declarations.js';
import { ProtocolQuery } from './query.js';
import { registerProtoA, type ProtoARequest } from './registrar.js';
import type { ResponseCache } from './response-cache.js';
import type { PlaybackStreamer as Streamer } from './streamer.js';
import type { DriveARedirect } from '../redirect/drive-a-redirect.js';
import type { SubtitleDelivery } from './subtitle-delivery.js';

/** Header a playback proxy adds to name the manual reverse-proxy address it serves. */
export const ENDPOINT_TOKEN_HEADER = 'x-svc-endpoint-token';

export interface ProtocolDeps {
  server: () => ServerIdentity;
  /** The server identity with the server information asked again when it is older than a second. */
  freshServer: () => Promise<ServerIdentity>;
  nodeId: string;
  serviceToken: string;
  listenPort: number;
  /** LocalAddress of System/Info (proto-a/local-address.ts). */
  localAddress: LocalAddress;
  /** False while the node does not serve PROTO_A (its supported protocols or the policy): 503. */
  enabled: () => boolean;
  users: UserClient;
  media: MediaClient;
  tokens: TokenResolver;
  gate: PlaybackGate;
  sessions: PlaySessions;
  meter: UsageMeter;
  streamer: Streamer;
  /** Redirect (302) playback of DRIVE_A media; absent = always proxied. */
  redirect?: DriveARedirect;
  subtitles: SubtitleDelivery;
  cache: ResponseCache;
  logger: Logger;
}

/** A signed-in player's request: who, with which device, through which entrance. */
export interface PlayerRequest {
  player: Player;
  device: PlaybackDevice;
  endpointId: string | null;
  query: ProtocolQuery;
  context: PlayContext;
}

type Declared<A extends ProtoADeclaration['access']> = ProtoADeclaration & { readonly access: A };
type Handler<D extends ProtoADeclaration> = (
  request: ProtoARequest<D>,
  reply: FastifyReply,
  query: ProtocolQuery,
) => Promise<unknown>;
type PlayerHandler<D extends ProtoADeclaration> = (
  request: ProtoARequest<D>,
  reply: FastifyReply,
  player: PlayerRequest,
) => Promise<unknown>;

/** The player each signed-in request was resolved to before validation. */
const players = new WeakMap<FastifyRequest, Omit<PlayerRequest, 'query'>>();

/** Registers the PROTO_A routes from their declarations (declarations.ts). */
export class ProtocolRoutes {
  constructor(
    private readonly app: AppServer,
    readonly deps: ProtocolDeps,
  ) {}

  /** A route open before sign-in. */
  anonymous<D extends Declared<'anonymous'>>(declaration: D, handler: Handler<D>): void {
    registerProtoA(this.app, declaration, {
      preValidation: async () => this.assertEnabled(),
      handler: async (request, reply) => handler(request, reply, new ProtocolQuery(request.query)),
    });
  }

  /** A route of a signed-in player (any accepted token form; 401 without one). */
  signedIn<D extends Declared<'signed-in'>>(declaration: D, handler: PlayerHandler<D>): void {
    registerProtoA(this.app, declaration, {
      preValidation: async (request) => {
        this.assertEnabled();
        players.set(request, await this.playerOf(request));
      },
      handler: async (request, reply) => {
        const player = players.get(request);
        if (!player) throw unauthorized('sign-in required');
        return handler(request, reply, { ...player, query: new ProtocolQuery(request.query) });
      },
    });
  }

  /** Who a request is: its token resolved, its device and entrance (the query is read after validation). */
  private async playerOf(request: FastifyRequest): Promise<Omit<PlayerRequest, 'query'>> {
    const auth = readClientAuthorization(request.headers, request.query as Record<string, unknown>);
    if (!auth.token) throw unauthorized('sign-in required');
    const player = await this.deps.tokens.resolve(auth.token);
    if (!player) throw unauthorized('the access token is not valid');
    const header = request.headers[ENDPOINT_TOKEN_HEADER];
    const endpointId = await this.deps.gate.endpointOf(typeof header === 'string' ? header : undefined);
    const device = deviceOf(auth, player.device);
    const userAgent = request.headers['user-agent'];
    return {
      player,
      device,
      endpointId,
      context: {
        userId: player.userId,
        tokenId: player.tokenId,
        device,
        clientIp: request.clientIp,
        userAgent: typeof userAgent === 'string' ? userAgent : '',
        endpointId,
      },
    };
  }

  /** The signed-in player of a request open to anyone, when it carries a valid token (else null). */
  async optionalPlayer(request: FastifyRequest): Promise<Player | null> {
    const auth = readClientAuthorization(request.headers, request.query as Record<string, unknown>);
    return auth.token ? this.deps.tokens.resolve(auth.token) : null;
  }

  private assertEnabled(): void {
    if (!this.deps.enabled()) throw protocolNotSupported();
  }
}

/**
 * Every path below an announced protocol this node does not serve answers 503 PROTOCOL_NOT_SUPPORTED
 * rather than 404 (HEAD comes with GET; OPTIONS stays with the browser preflight).
 */
export function serveUnservedProtocols(app: AppServer): void {
  const { playAgent } = endpoints;
  for (const endpoint of [
    playAgent.unservedProtoBGet,
    playAgent.unservedProtoBPost,
    playAgent.unservedProtoBDelete,
    playAgent.unservedProtoCGet,
    playAgent.unservedProtoCPost,
    playAgent.unservedProtoCDelete,
  ]) {
    serve(app, endpoint, async () => {
      throw protocolNotSupported();
    });
  }
}

function protocolNotSupported(): AppError {
  return new AppError(
    503,
    'PROTOCOL_NOT_SUPPORTED',
    'this node does not serve the requested client protocol',
  );
}

/**
 * The client and device of a request: what the request names (authorization header, X-Emby-* headers or
 * query) wins field by field; a field it leaves empty comes from the device the token was issued to, so a
 * stream URL carrying only `api_key` is still attributed to the app that signed in.
 */
export function deviceOf(named: PlaybackDevice, issuedTo: PlaybackDevice | undefined): PlaybackDevice {
  const client = named.client || (issuedTo?.client ?? '');
  return {
    client,
    deviceName: named.deviceName || (issuedTo?.deviceName ?? ''),
    deviceId: named.deviceId || (issuedTo?.deviceId ?? ''),
    // A version belongs to its client: the token's only with the token's client.
    version: named.version || (named.client ? '' : (issuedTo?.version ?? '')),
  };
}

/** A path and its forms: routes are also reachable below /emby (handled by the server's URL rewrite). */
export const paths = (...urls: string[]) => urls;
