import { createServer as createNetServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createServer, type AppServer } from '../../../src/platform/http/create-server.js';
import { enableStreamingProxy, forward } from '../../../src/platform/http/stream-proxy.js';
import { createLogger } from '../../../src/platform/logger.js';

/**
 * An upstream that answers the first request of each connection and drops the connection on the
 * second, as a kept-alive connection to a process that died and came back does.
 */
function droppingUpstream(): Server {
  return createNetServer((socket) => {
    let requests = 0;
    socket.on('data', () => {
      requests += 1;
      if (requests > 1) {
        socket.destroy();
        return;
      }
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
    });
  });
}

describe('the streaming proxy when a kept-alive upstream connection drops', () => {
  let upstream: Server;
  let proxy: AppServer;
  let base: string;

  beforeAll(async () => {
    upstream = droppingUpstream();
    await new Promise<void>((resolve) => upstream.listen({ host: '127.0.0.1', port: 0 }, resolve));
    const upstreamBase = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    proxy = createServer({
      allowUndeclaredRoutes: true,
      component: 'frontend',
      logger: createLogger({ level: 'silent', component: 'test' }),
      serviceToken: 'token',
    });
    await enableStreamingProxy(proxy, {});
    proxy.all('/*', { config: { auth: { direct: 'entrance' } } }, (req, reply) =>
      forward(req, reply, upstreamBase),
    );
    base = await proxy.listen({ host: '127.0.0.1', port: 0 });
  });

  afterAll(async () => {
    await proxy.close();
    await new Promise((resolve) => upstream.close(resolve));
  });

  const send = async (method: 'GET' | 'POST', body?: string) => {
    const response = await request(`${base}/thing`, { method, body });
    return { status: response.statusCode, text: await response.body.text() };
  };

  it('tries a GET again on a fresh connection', async () => {
    expect(await send('GET')).toEqual({ status: 200, text: 'ok' });
    expect(await send('GET')).toEqual({ status: 200, text: 'ok' });
  });

  it('does not send a request with a body twice', async () => {
    expect(await send('GET')).toEqual({ status: 200, text: 'ok' });
    const posted = await send('POST', 'payload');
    expect(posted.status).toBe(502);
    expect(JSON.parse(posted.text)).toMatchObject({ error: { code: 'UPSTREAM_UNAVAILABLE' } });
  });
});
