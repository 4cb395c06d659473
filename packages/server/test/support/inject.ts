import type { Readable } from 'node:stream';
import type { ComponentName } from '@svc/contracts';
import type { AppServer } from '../../src/platform/http/create-server.js';
import type { TestInstall } from './runtime.js';

/*
 * Service-level tests call a component's routes in-process with Fastify's inject(): the request runs
 * through the same hooks, validation, auth rule and handler as one that arrived on the socket, without
 * a TCP connection per call. Tests whose subject is the network itself (streaming at a rate, a client
 * that goes away, SSE, timeouts, proxies, the gateway's hop to a service) keep using real sockets.
 */

export interface InjectedAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
}

export interface InjectOptions {
  method: string;
  /** Path and query, as sent on the wire. */
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer | Readable;
}

function componentOf(install: TestInstall, name: ComponentName) {
  const component = install.running.components.find((candidate) => candidate.name === name);
  if (!component) throw new Error(`the test install runs no ${name} component`);
  return component;
}

/** The running Fastify app of one component of an install. */
export function componentApp(install: TestInstall, name: ComponentName): AppServer {
  return componentOf(install, name).app;
}

/**
 * One request to a component, handled in-process. The Host header is the one a loopback client of the
 * component's port would send, so routes that build addresses from it answer as they would over TCP.
 */
export async function injectInto(
  install: TestInstall,
  name: ComponentName,
  options: InjectOptions,
): Promise<InjectedAnswer> {
  const component = componentOf(install, name);
  const response = await component.app.inject({
    method: options.method.toUpperCase() as 'GET',
    url: options.url,
    headers: { host: `127.0.0.1:${component.port}`, ...options.headers },
    ...(options.body === undefined ? {} : { payload: options.body }),
  });
  return {
    status: response.statusCode,
    headers: response.headers as InjectedAnswer['headers'],
    raw: response.rawPayload,
  };
}

export interface JsonAnswer<T> {
  status: number;
  headers: InjectedAnswer['headers'];
  /** The parsed JSON body; undefined when the answer has none. */
  body: T;
}

/** A request with an optional JSON body to a component, handled in-process; the answer's JSON parsed. */
export async function injectJson<T = unknown>(
  install: TestInstall,
  name: ComponentName,
  request: { method: string; url: string; headers?: Record<string, string>; body?: unknown },
): Promise<JsonAnswer<T>> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const answer = await injectInto(install, name, {
    method: request.method,
    url: request.url,
    headers,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  });
  const text = answer.raw.toString('utf8');
  return { status: answer.status, headers: answer.headers, body: (text ? JSON.parse(text) : undefined) as T };
}
