import type { FastifyReply } from 'fastify';
import { request } from 'undici';
import {
  DRIVE_USER_AGENT_HEADER,
  directLinkResponseSchema,
  errorBodySchema,
  type DriveAPlayMode,
  type PlaybackFile,
} from '@svc/contracts';
import { errorBody } from '../../../platform/http/errors.js';
import type { Logger } from '../../../platform/logger.js';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';
import { allowedRedirectHost, resolveHost, type HostResolver } from './allowed-hosts.js';
import { LinkCache, type ResolvedLink } from './link-cache.js';
import { MountKinds } from './mount-kinds.js';

/** The only text a failed redirect answers: nothing of the drive, the link or the account leaks. */
export const REDIRECT_FAILED_TEXT = 'the drive could not provide a playable link';
const PROVIDER = 'drive_a';

/** Why a link could not be had; `tokenInvalid` answers are cached negatively. */
export class LinkError extends Error {
  constructor(
    message: string,
    readonly tokenInvalid: boolean,
  ) {
    super(message);
  }
}

export interface DriveARedirectDeps {
  /** The global switch, as the last policy refresh left it. */
  switchedOn: () => boolean;
  /** The base URL of a storage node. */
  storageUrl: (nodeId: string) => Promise<string>;
  serviceToken: string;
  /** PLAY_AGENT_DRIVE_A_REDIRECT_ALLOWED_HOSTS. */
  allowedHosts: readonly string[];
  /** PLAY_AGENT_DRIVE_A_REDIRECT_USER_AGENT: fixes the User-Agent of every link request. */
  userAgent: string | undefined;
  now: () => number;
  logger: Logger;
  resolve?: HostResolver;
}

export interface RedirectRequest {
  userId: string;
  itemId: string;
  /** The user's DRIVE_A play mode (playback policy). */
  playMode: DriveAPlayMode;
  file: Pick<PlaybackFile, 'nodeId' | 'mountId' | 'path'>;
}

/**
 * Redirect (302) playback of DRIVE_A media (docs/drives.md). Called for video playback only, after the
 * player was authenticated and its quota checked; answers the request itself ('redirected' or 'failed')
 * or leaves it to the proxied path ('proxied').
 */
export class DriveARedirect {
  readonly links: LinkCache;
  private readonly kinds: MountKinds;

  constructor(private readonly deps: DriveARedirectDeps) {
    this.links = new LinkCache({
      now: deps.now,
      isTokenInvalid: (error) => error instanceof LinkError && error.tokenInvalid,
    });
    this.kinds = new MountKinds(deps.serviceToken);
  }

  async answer(reply: FastifyReply, play: RedirectRequest): Promise<'redirected' | 'failed' | 'proxied'> {
    if (!this.deps.switchedOn() || play.playMode !== 'redirect') return 'proxied';
    let baseUrl: string;
    try {
      baseUrl = await this.deps.storageUrl(play.file.nodeId);
    } catch {
      return 'proxied';
    }
    if ((await this.kinds.kindOf(baseUrl, play.file.mountId)) !== PROVIDER) return 'proxied';
    const log = { userId: play.userId, itemId: play.itemId, provider: PROVIDER };
    let link: ResolvedLink;
    try {
      const key = LinkCache.key(PROVIDER, play.itemId, play.file.mountId);
      link = await this.links.get(key, () => this.fetchLink(baseUrl, play.file));
    } catch (error) {
      const result = error instanceof LinkError && error.tokenInvalid ? 'token-invalid' : 'link-failed';
      this.deps.logger.warn({ ...log, host: null, result }, 'drive redirect failed');
      return this.fail(reply);
    }
    const host = await allowedRedirectHost(
      link.url,
      this.deps.allowedHosts,
      this.deps.resolve ?? resolveHost,
    );
    if (!host) {
      this.deps.logger.warn(
        { ...log, host: hostOf(link.url), result: 'host-refused' },
        'drive redirect failed',
      );
      return this.fail(reply);
    }
    this.deps.logger.info({ ...log, host, result: 'redirected' }, 'drive redirect');
    // WHATWG URL serialisation percent-encodes what a Location header may not carry.
    await reply
      .code(302)
      .header('location', new URL(link.url).href)
      .header('cache-control', 'no-store')
      .send();
    return 'redirected';
  }

  private async fail(reply: FastifyReply): Promise<'failed'> {
    await reply
      .code(502)
      .header('cache-control', 'no-store')
      .send(errorBody('DRIVE_LINK_FAILED', REDIRECT_FAILED_TEXT));
    return 'failed';
  }

  private async fetchLink(
    baseUrl: string,
    file: Pick<PlaybackFile, 'mountId' | 'path'>,
  ): Promise<ResolvedLink> {
    const url = `${baseUrl}/api/storage/internal/mounts/${encodeURIComponent(file.mountId)}/link?path=${encodeURIComponent(file.path)}`;
    const headers: Record<string, string> = {
      [SERVICE_TOKEN_HEADER]: this.deps.serviceToken,
      accept: 'application/json',
    };
    if (this.deps.userAgent) headers[DRIVE_USER_AGENT_HEADER] = this.deps.userAgent;
    let answer;
    try {
      answer = await request(url, { headers, headersTimeout: 15_000, bodyTimeout: 15_000 });
    } catch (error) {
      throw new LinkError(`the storage node did not answer: ${(error as Error).message}`, false);
    }
    const body: unknown = await answer.body.json().catch(() => null);
    if (answer.statusCode !== 200) {
      const failure = errorBodySchema.safeParse(body);
      const code = failure.success ? failure.data.error.code : null;
      throw new LinkError(`the storage node answered ${answer.statusCode}`, code === 'DRIVE_TOKEN_INVALID');
    }
    const parsed = directLinkResponseSchema.safeParse(body);
    if (!parsed.success) throw new LinkError('the storage node answered no link', false);
    const expiresAt = parsed.data.expiresAt === null ? null : new Date(parsed.data.expiresAt);
    return { url: parsed.data.url, expiresAt, headers: parsed.data.headers };
  }
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}
