import type { FastifyRequest } from 'fastify';
import type { Identity, TokenKind } from '@svc/contracts';
import { AppError } from '../../platform/http/errors.js';
import { holdsAny, type GatewayRule } from '../../platform/http/route-auth.js';
import type { TokenIntrospector } from './token-introspector.js';

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function adminToken(request: FastifyRequest): string | undefined {
  const header = request.headers['x-admin-token'];
  return typeof header === 'string' && header.length > 0 ? header : undefined;
}

function credentialFor(
  rule: GatewayRule,
  request: FastifyRequest,
): { token: string; kind: TokenKind } | undefined {
  const admin = adminToken(request);
  const access = bearer(request);
  if (rule.kind === 'admin') return admin ? { token: admin, kind: 'admin' } : undefined;
  if (rule.kind === 'access') return access ? { token: access, kind: 'access' } : undefined;
  if (admin) return { token: admin, kind: 'admin' };
  return access ? { token: access, kind: 'access' } : undefined;
}

/**
 * Applies a gateway rule to a request: resolves the account behind its token (401 when there is none
 * or it is not valid) and checks the menu permissions (403). Rules without an account return null.
 */
export async function authenticate(
  rule: GatewayRule,
  request: FastifyRequest,
  clientIp: string,
  introspector: TokenIntrospector,
): Promise<Identity | null> {
  if (rule.kind !== 'admin' && rule.kind !== 'access' && rule.kind !== 'account') return null;
  const credential = credentialFor(rule, request);
  if (!credential) throw new AppError(401, 'UNAUTHORIZED', 'sign-in required');
  if (credential.token.length > 512) throw new AppError(401, 'UNAUTHORIZED', 'token is not valid');
  let answer;
  try {
    answer = await introspector.check(credential.token, credential.kind);
  } catch {
    throw new AppError(503, 'UPSTREAM_UNAVAILABLE', 'the user service did not answer');
  }
  if (!answer) throw new AppError(401, 'UNAUTHORIZED', 'token is not valid or has expired');
  const identity: Identity = {
    userId: answer.userId,
    username: answer.username,
    role: answer.role,
    permissions: answer.permissions,
    tokenKind: credential.kind,
    tokenId: answer.tokenId,
    clientIp,
  };
  if (rule.kind === 'admin' && !holdsAny(identity, rule.anyOf)) {
    throw new AppError(403, 'FORBIDDEN', 'this account lacks the permission for this page');
  }
  return identity;
}
