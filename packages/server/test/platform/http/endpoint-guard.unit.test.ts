import { describe, expect, it } from 'vitest';
import { endpoints } from '@svc/contracts';
import { createServer } from '../../../src/platform/http/create-server.js';
import { serve } from '../../../src/platform/http/endpoint-route.js';
import { createLogger } from '../../../src/platform/logger.js';

const logger = createLogger({ level: 'silent', component: 'test' });
const server = () => createServer({ component: 'config', logger, serviceToken: 'token' });

describe('a service registers only declared endpoints', () => {
  it('refuses a route without a declaration when it is registered', async () => {
    const app = server();
    expect(() =>
      app.get(
        '/api/config/undeclared',
        { config: { auth: { gateway: { kind: 'public' } } } },
        async () => ({}),
      ),
    ).toThrow(/GET \/api\/config\/undeclared has no endpoint declaration/);
    await app.close();
  });

  it('serves a declared endpoint with its rule and id, and lets the entrance catch-all through', async () => {
    const app = server();
    serve(app, endpoints.config.getCapabilities, async () => ({}) as never);
    app.all('/api/*', { config: { auth: { direct: 'entrance' } } }, async () => ({}));
    await app.ready();
    const answer = await app.inject({ method: 'GET', url: '/api/config/deployment/capabilities' });
    // The declared rule is a gateway rule: without the service token the route refuses the call.
    expect(answer.statusCode).toBe(401);
    await app.close();
  });
});
