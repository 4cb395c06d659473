import { request } from 'undici';
import type { Identity } from '@svc/contracts';
import { AppError } from '../../../platform/http/errors.js';
import {
  CLIENT_IP_HEADER,
  IDENTITY_HEADER,
  type GatewayRule,
  encodeIdentity,
  holdsAny,
} from '../../../platform/http/route-auth.js';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';
import { matchGatewayRoute, type GatewayRoute } from '../gateway-routes.js';
import type { GatewayRouteMatcher } from '../route-table.js';
import type { UpstreamResolver } from '../upstream-resolver.js';

export interface ApiCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}

export interface ApiAnswer {
  status: number;
  body: unknown;
}

type Authorization = { refusal: AppError } | { route: GatewayRoute; rule: GatewayRule };

/**
 * Calls the public API on behalf of an MCP caller, applying the same route-table rule as the gateway:
 * the account must hold one of the route's menu permissions. The call then goes to the service as an
 * administrative request of that account (the services trust the gateway's identity header).
 */
export class UpstreamCaller {
  constructor(
    private readonly deps: {
      matcher: GatewayRouteMatcher;
      resolver: UpstreamResolver;
      serviceToken: string;
    },
  ) {}

  /**
   * Why the account may not make this call, or undefined when it may: the gateway route table's rule for
   * the call's method and path. Both the call itself and the tool list (mcp-endpoint) ask this.
   */
  refusal(identity: Identity, call: ApiCall): AppError | undefined {
    const decision = this.authorize(identity, call);
    return 'refusal' in decision ? decision.refusal : undefined;
  }

  async call(identity: Identity, call: ApiCall): Promise<ApiAnswer> {
    const decision = this.authorize(identity, call);
    if ('refusal' in decision) throw decision.refusal;
    const { route, rule } = decision;
    const base = await this.deps.resolver.resolve(route.service, undefined);
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) search.set(key, String(value));
    }
    const url = `${base}${call.path}${search.size > 0 ? `?${search.toString()}` : ''}`;
    const acting: Identity = { ...identity, tokenKind: rule.kind === 'admin' ? 'admin' : identity.tokenKind };
    const response = await request(url, {
      method: call.method,
      headers: {
        [SERVICE_TOKEN_HEADER]: this.deps.serviceToken,
        [IDENTITY_HEADER]: encodeIdentity(acting),
        [CLIENT_IP_HEADER]: identity.clientIp,
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    const text = await response.body.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // plain text answers stay text
    }
    return { status: response.statusCode, body };
  }

  private authorize(identity: Identity, call: ApiCall): Authorization {
    const route = matchGatewayRoute(call.path);
    const rule = route ? this.deps.matcher.match(call.method, call.path)?.rule : undefined;
    if (!route || !rule) {
      return { refusal: new AppError(404, 'NOT_FOUND', `no route for ${call.method} ${call.path}`) };
    }
    if (rule.kind === 'admin' && !holdsAny(identity, rule.anyOf)) {
      const needed = rule.anyOf === 'any' ? 'a console permission' : `permission ${rule.anyOf.join(' or ')}`;
      return {
        refusal: new AppError(
          403,
          'FORBIDDEN',
          `this account lacks ${needed} for ${call.method} ${call.path}`,
        ),
      };
    }
    if (rule.kind === 'node-token' || rule.kind === 'webhook-token') {
      return { refusal: new AppError(403, 'FORBIDDEN', 'this route is not for accounts') };
    }
    return { route, rule };
  }
}
