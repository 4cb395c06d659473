import type { Identity, IntrospectResponse, TokenKind } from '@svc/contracts';
import type { Clock } from '../../../src/platform/cache/index.js';
import { encodeIdentity } from '../../../src/platform/http/route-auth.js';
import { injectJson } from '../../support/inject.js';
import type { TestInstall } from '../../support/runtime.js';

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  constructor(public time = Date.parse('2024-03-06T04:00:00.000Z')) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

export interface CallOptions {
  body?: unknown;
  /** The identity a gateway would forward (encoded into X-SVC-Identity). */
  identity?: Identity | null;
  clientIp?: string;
  /** false: call without the service token, like a caller bypassing the gateway. */
  serviceToken?: boolean;
}

export interface Answer<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
}

/** Calls the user service directly (in-process) with the headers the gateway would send. */
export class UserServiceClient {
  constructor(private readonly install: TestInstall) {}

  async call<T = unknown>(method: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
    const headers: Record<string, string> = {};
    if (options.serviceToken !== false) headers['x-svc-service-token'] = this.install.context.serviceToken;
    if (options.identity) headers['x-svc-identity'] = encodeIdentity(options.identity);
    headers['x-svc-client-ip'] = options.clientIp ?? '203.0.113.10';
    return injectJson<T>(this.install, 'user', { method, url: path, headers, body: options.body });
  }

  async introspect(token: string, kind: TokenKind): Promise<IntrospectResponse> {
    const answer = await this.call<IntrospectResponse>('POST', '/api/auth/internal/introspect', {
      body: { token, kind },
    });
    if (answer.status !== 200) throw new Error(`introspect answered ${answer.status}`);
    return answer.body;
  }

  /** What a gateway would forward for this token (throws when the token is not active). */
  async identityOf(token: string, kind: TokenKind, clientIp = '203.0.113.10'): Promise<Identity> {
    const result = await this.introspect(token, kind);
    if (!result.active) throw new Error('token is not active');
    return {
      userId: result.userId,
      username: result.username,
      role: result.role,
      permissions: result.permissions,
      tokenKind: kind,
      tokenId: result.tokenId,
      clientIp,
    };
  }

  /** Signs in on the console and answers the admin identity the gateway would forward. */
  async consoleIdentity(username: string, password: string): Promise<Identity> {
    const login = await this.call<{ adminToken: string }>('POST', '/api/auth/login', {
      body: { username, password, client: 'console' },
    });
    if (login.status !== 200) throw new Error(`console sign-in of ${username} answered ${login.status}`);
    return this.identityOf(login.body.adminToken, 'admin');
  }
}
