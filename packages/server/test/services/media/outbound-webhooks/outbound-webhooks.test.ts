import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_OUTBOUND_WEBHOOK_BODIES,
  OUTBOUND_WEBHOOK_MASK,
  type ListOutboundWebhooksResponse,
  type OutboundWebhook,
  type OutboundWebhookDeliveriesResponse,
  type OutboundWebhookDelivery,
  type OutboundWebhookLibrariesResponse,
  type OutboundWebhookTestResponse,
} from '@svc/contracts';
import { sql } from 'kysely';
import { installBackends } from '../../../support/install-backends.js';
import { call } from '../../../support/playback-install.js';
import { waitFor } from '../../../support/runtime.js';
import { systemResolver } from '../../../../src/services/media/webhooks/outbound/safe-http-client.js';
import { startReceiver, type Receiver } from './receiver.js';
import { startWebhookInstall, type WebhookInstall } from './webhook-install.js';

const RETRY_DELAYS_MS = [300, 600, 1_200];

interface ErrorAnswer {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
}

interface EventRow {
  id: string;
  library_id: string;
  library_name: string;
  media_title: string;
  media_year: number | null;
}

describe.each(installBackends())('outbound webhooks on $label', (backend) => {
  let env: WebhookInstall;
  let receiver: Receiver;

  const create = async (body: Record<string, unknown>) => {
    const answer = await env.api<OutboundWebhook & ErrorAnswer>('POST', '/api/media/outbound-webhooks', body);
    expect(answer.status, answer.text).toBe(201);
    return answer.body;
  };
  const remove = async (id: string) =>
    expect((await env.api('DELETE', `/api/media/outbound-webhooks/${id}`)).status).toBe(204);
  const deliveries = async (query = '') =>
    (
      await env.api<OutboundWebhookDeliveriesResponse>(
        'GET',
        `/api/media/outbound-webhooks/deliveries${query}`,
      )
    ).body.deliveries;
  /** A console account holding only these permissions, signed in; answers its admin token. */
  const consoleAccount = async (username: string, permissions: string[]) => {
    const password = `${username}-password-1`;
    const user = await env.api('POST', '/api/auth/admin/users', { username, password, permissions });
    expect(user.status).toBe(201);
    const login = await call(env.entrance, 'POST', '/api/auth/login', {
      body: { username, password, client: 'console' },
    });
    expect(login.status).toBe(200);
    return String(login.body.adminToken);
  };
  const deliveriesOf = async (endpointId: string) => deliveries(`?endpointId=${endpointId}`);
  const arrived = (prefix: string) => receiver.requests.filter((request) => request.url.startsWith(prefix));
  const eventsOf = async (libraryId: string) =>
    (await env.parts.database.db
      .selectFrom('media_events')
      .select(['id', 'library_id', 'library_name', 'media_title', 'media_year'])
      .where('library_id', '=', libraryId)
      .execute()) as EventRow[];

  beforeAll(async () => {
    receiver = await startReceiver();
    env = await startWebhookInstall(backend, {
      intervalMs: 150,
      retryDelaysMs: RETRY_DELAYS_MS,
      http: {
        timeoutMs: 3_000,
        // A name of our own that resolves to loopback, as a DNS record pointing inside would.
        resolve: async (name) => (name === 'hooks.internal.test' ? ['127.0.0.1'] : systemResolver(name)),
      },
    });
  });
  // Every test starts without endpoints, whatever the previous one left behind.
  afterEach(async () => {
    const list = await env.api<ListOutboundWebhooksResponse>('GET', '/api/media/outbound-webhooks');
    for (const endpoint of list.body.endpoints)
      await env.api('DELETE', `/api/media/outbound-webhooks/${endpoint.id}`);
    receiver.handle(null);
  });
  afterAll(async () => {
    await env?.stop();
    await receiver?.close();
  });

  it('lists no endpoint at first, with the 26 variables, the defaults, the retry plan and the libraries', async () => {
    const list = await env.api<ListOutboundWebhooksResponse>('GET', '/api/media/outbound-webhooks');
    expect(list.status).toBe(200);
    expect(list.body.endpoints).toEqual([]);
    expect(list.body.variables).toHaveLength(26);
    expect(list.body.variables.map((v) => v.token)).toContain('{{urlencode.media.title}}');
    expect(list.body.defaultBodies['application/json']).toContain('New media added');
    expect(list.body.retry).toEqual({ maxAttempts: 4, delaysMs: RETRY_DELAYS_MS });
    const libraries = await env.api<OutboundWebhookLibrariesResponse>(
      'GET',
      '/api/media/outbound-webhooks/libraries',
    );
    expect(libraries.body.libraries).toEqual([
      { id: env.libraries.movies, name: 'Movies', type: 'movies' },
      { id: env.libraries.shows, name: 'Shows', type: 'series' },
    ]);
  });

  it('creates with defaults, updates, deletes; refuses bad input with 400 and unknown ids with 404', async () => {
    const made = await create({ name: 'Minimal', url: 'https://hooks.example.com/x' });
    expect(made).toMatchObject({
      name: 'Minimal',
      method: 'POST',
      url: 'https://hooks.example.com/x',
      urlSensitive: false,
      contentType: 'application/json',
      enabled: true,
      allowPrivateNetwork: false,
      query: [],
      headers: [],
      body: DEFAULT_OUTBOUND_WEBHOOK_BODIES['application/json'],
      libraryIds: [],
    });
    const text = await create({
      name: 'Text',
      url: 'https://hooks.example.com/t',
      contentType: 'text/plain',
    });
    expect(text.body).toBe(DEFAULT_OUTBOUND_WEBHOOK_BODIES['text/plain']);

    const updated = await env.api<OutboundWebhook>('PUT', `/api/media/outbound-webhooks/${made.id}`, {
      name: 'Renamed',
      method: 'GET',
      libraryIds: [env.libraries.shows],
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'Renamed',
      method: 'GET',
      url: made.url,
      libraryIds: [env.libraries.shows],
    });
    const listed = await env.api<ListOutboundWebhooksResponse>('GET', '/api/media/outbound-webhooks');
    expect(listed.body.endpoints.map((endpoint) => endpoint.name)).toEqual(['Renamed', 'Text']);

    const base = { name: 'Bad', url: 'https://hooks.example.com/x' };
    const bad: [unknown, string][] = [
      [{ url: base.url }, '/name'],
      [{ ...base, name: ' ' }, '/name'],
      [{ ...base, method: 'DELETE' }, '/method'],
      [{ ...base, contentType: 'application/xml' }, '/contentType'],
      [{ ...base, url: 'ftp://hooks.example.com/x' }, '/url'],
      [{ ...base, url: 'not a url' }, '/url'],
      [{ ...base, url: 'https://hooks.example.com/{{media.titel}}' }, '/url'],
      [{ ...base, url: 'http://127.0.0.1:9/x' }, '/url'],
      [{ ...base, url: 'http://2130706433/x' }, '/url'],
      [{ ...base, url: 'http://[::1]/x' }, '/url'],
      [{ ...base, body: '{"a": "{{nope}}"}' }, '/body'],
      [{ ...base, body: '{"a": {{media.title}} x}' }, '/body'],
      [{ ...base, body: '{"a": "{{media.title}}"' }, '/body'],
      [{ ...base, headers: [{ key: 'Content-Type', value: 'text/html' }] }, '/headers/0/key'],
      [{ ...base, headers: [{ key: 'Bad Name', value: 'v' }] }, '/headers/0/key'],
      [
        {
          ...base,
          headers: [
            { key: 'X-A', value: 'v' },
            { key: 'x-a', value: 'w' },
          ],
        },
        '/headers/1/key',
      ],
      [{ ...base, headers: [{ key: 'X-A', value: '{{media.nope}}' }] }, '/headers/0/value'],
      [
        {
          ...base,
          query: [
            { key: 'a', value: '1' },
            { key: 'a', value: '2' },
          ],
        },
        '/query/1/key',
      ],
      [{ ...base, query: [{ key: 's', value: OUTBOUND_WEBHOOK_MASK, sensitive: true }] }, '/query/0/value'],
      [{ ...base, libraryIds: ['not-a-uuid'] }, '/libraryIds/0'],
      [{ ...base, libraryIds: ['00000000-0000-4000-8000-00000000abcd'] }, '/libraryIds/0'],
      [{ ...base, extra: true }, '/'],
    ];
    for (const [body, field] of bad) {
      const answer = await env.api<ErrorAnswer>('POST', '/api/media/outbound-webhooks', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_FAILED');
      expect(
        answer.body.error.details?.map((detail) => detail.path),
        JSON.stringify(body),
      ).toContain(field);
    }
    const badPut = await env.api<ErrorAnswer>('PUT', `/api/media/outbound-webhooks/${made.id}`, {
      url: 'gopher://x',
    });
    expect(badPut.status).toBe(400);
    expect((await env.api('PUT', '/api/media/outbound-webhooks/not-a-uuid', { name: 'x' })).status).toBe(400);
    const unknown = '00000000-0000-4000-8000-000000000999';
    for (const [method, route] of [
      ['PUT', `/api/media/outbound-webhooks/${unknown}`],
      ['DELETE', `/api/media/outbound-webhooks/${unknown}`],
      ['POST', `/api/media/outbound-webhooks/${unknown}/test`],
    ] as const) {
      const answer = await env.api<ErrorAnswer>(method, route, method === 'PUT' ? { name: 'x' } : undefined);
      expect(answer.status, route).toBe(404);
      expect(answer.body.error.code).toBe('NOT_FOUND');
    }
    for (const query of ['?limit=51', '?limit=0', '?limit=abc', '?endpointId=x', '?other=1']) {
      expect((await env.api('GET', `/api/media/outbound-webhooks/deliveries${query}`)).status, query).toBe(
        400,
      );
    }
    // Nothing was written by the refused requests.
    expect(
      (await env.api<ListOutboundWebhooksResponse>('GET', '/api/media/outbound-webhooks')).body.endpoints,
    ).toHaveLength(2);
    await remove(made.id);
    await remove(text.id);
    expect((await env.api('DELETE', `/api/media/outbound-webhooks/${made.id}`)).status).toBe(404);
  });

  it('needs the settings permission: 401 without a token, 403 for an administrator account without it', async () => {
    const librarian = await consoleAccount('librarian', ['library']);
    const id = '00000000-0000-4000-8000-000000000001';
    const routes: [string, string, unknown?][] = [
      ['GET', '/api/media/outbound-webhooks'],
      ['POST', '/api/media/outbound-webhooks', { name: 'x', url: 'https://hooks.example.com/' }],
      ['GET', '/api/media/outbound-webhooks/libraries'],
      ['GET', '/api/media/outbound-webhooks/deliveries?limit=50'],
      ['PUT', `/api/media/outbound-webhooks/${id}`, { name: 'x' }],
      ['DELETE', `/api/media/outbound-webhooks/${id}`],
      ['POST', `/api/media/outbound-webhooks/${id}/test`],
    ];
    for (const [method, route, body] of routes) {
      const forbidden = await env.api<ErrorAnswer>(method, route, body, librarian);
      expect(forbidden.status, `${method} ${route}`).toBe(403);
      expect(forbidden.body.error.code).toBe('FORBIDDEN');
      expect((await env.api(method, route, body, null)).status, `${method} ${route}`).toBe(401);
    }
    // The librarian can still do what it may.
    expect((await env.api('GET', '/api/media/libraries', undefined, librarian)).status).toBe(200);
    expect(
      (await env.api<ListOutboundWebhooksResponse>('GET', '/api/media/outbound-webhooks')).body.endpoints,
    ).toEqual([]);
  });

  it('reserves allowPrivateNetwork to administrators: a settings delegate can neither set, keep nor test-send it', async () => {
    const delegate = await consoleAccount('webhook-delegate', ['settings']);
    const adminOnly = (answer: { status: number; body: ErrorAnswer }) => {
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('ADMIN_ONLY_SETTING');
      expect(answer.body.error.message).toMatch(/allowPrivateNetwork/);
      expect(answer.body.error.details?.[0]?.path).toBe('/allowPrivateNetwork');
    };

    const target = `${receiver.base}/delegate`;
    adminOnly(
      await env.api<ErrorAnswer>(
        'POST',
        '/api/media/outbound-webhooks',
        { name: 'Inside', url: target, allowPrivateNetwork: true },
        delegate,
      ),
    );
    const allowed = await create({ name: 'Allowed by root', url: target, allowPrivateNetwork: true });
    const route = `/api/media/outbound-webhooks/${allowed.id}`;
    adminOnly(await env.api<ErrorAnswer>('PUT', route, { name: 'Renamed' }, delegate));
    adminOnly(
      await env.api<ErrorAnswer>('PUT', route, { url: `${target}/x`, allowPrivateNetwork: true }, delegate),
    );
    adminOnly(await env.api<ErrorAnswer>('POST', `${route}/test`, undefined, delegate));
    expect(arrived('/delegate')).toEqual([]);
    const unchanged = await env.api<ListOutboundWebhooksResponse>('GET', '/api/media/outbound-webhooks');
    expect(unchanged.body.endpoints[0]).toMatchObject({ name: 'Allowed by root', url: target });

    // Switching it off is the delegate's way to edit the endpoint; from then on the guard applies (here to a
    // name that resolves to loopback, which only the connect-time check can see).
    const switchedOff = await env.api<OutboundWebhook>(
      'PUT',
      route,
      {
        name: 'Renamed',
        url: `http://hooks.internal.test:${receiver.port}/delegate`,
        allowPrivateNetwork: false,
      },
      delegate,
    );
    expect(switchedOff.status).toBe(200);
    expect(switchedOff.body).toMatchObject({ name: 'Renamed', allowPrivateNetwork: false });
    const guarded = await env.api<OutboundWebhookTestResponse>('POST', `${route}/test`, undefined, delegate);
    expect(guarded.status).toBe(200);
    expect(guarded.body).toMatchObject({ ok: false, httpStatus: null, responseExcerpt: null });
    expect(guarded.body.error).toMatch(/not a public address/);
    expect(arrived('/delegate')).toEqual([]);
    // The administrator may allow it again.
    const again = await env.api<OutboundWebhook>('PUT', route, { allowPrivateNetwork: true });
    expect(again.body.allowPrivateNetwork).toBe(true);
  });

  it('answers sensitive values masked and keeps them when a PUT sends the mask back', async () => {
    const made = await create({
      name: 'Secret',
      url: `${receiver.base}/masked/{{library.id}}?token=URLSECRET`,
      urlSensitive: true,
      allowPrivateNetwork: true,
      query: [
        { key: 'sig', value: 'QUERYSECRET', sensitive: true },
        { key: 'plain', value: 'visible' },
      ],
      headers: [
        { key: 'Authorization', value: 'Bearer HEADERSECRET', sensitive: true },
        { key: 'X-Plain', value: 'shown' },
      ],
    });
    expect(made.url).toBe(`http://127.0.0.1:${receiver.port}/${OUTBOUND_WEBHOOK_MASK}`);
    expect(made.query).toEqual([
      { key: 'sig', value: OUTBOUND_WEBHOOK_MASK, sensitive: true },
      { key: 'plain', value: 'visible', sensitive: false },
    ]);
    expect(made.headers).toEqual([
      { key: 'Authorization', value: OUTBOUND_WEBHOOK_MASK, sensitive: true },
      { key: 'X-Plain', value: 'shown', sensitive: false },
    ]);
    const listed = await env.api('GET', '/api/media/outbound-webhooks');
    for (const secret of ['URLSECRET', 'QUERYSECRET', 'HEADERSECRET'])
      expect(listed.text).not.toContain(secret);

    // The page sends back what it got (masks included), with one change.
    const { id, createdAt: _c, updatedAt: _u, ...editable } = made;
    const echoed = await env.api<OutboundWebhook>('PUT', `/api/media/outbound-webhooks/${id}`, {
      ...editable,
      name: 'Secret 2',
      headers: [
        ...made.headers.map(({ key, value, sensitive }) => ({ key: key.toLowerCase(), value, sensitive })),
      ],
    });
    expect(echoed.status, echoed.text).toBe(200);
    expect(echoed.body).toMatchObject({ name: 'Secret 2', url: made.url, query: made.query });
    for (const secret of ['URLSECRET', 'QUERYSECRET', 'HEADERSECRET'])
      expect(echoed.text).not.toContain(secret);

    const test = await env.api<OutboundWebhookTestResponse>(
      'POST',
      `/api/media/outbound-webhooks/${id}/test`,
    );
    expect(test.body).toMatchObject({ ok: true, httpStatus: 200 });
    const sent = arrived('/masked/').at(-1)!;
    const url = new URL(sent.url, 'http://x');
    expect(url.searchParams.get('token')).toBe('URLSECRET');
    expect(url.searchParams.get('sig')).toBe('QUERYSECRET');
    expect(url.searchParams.get('plain')).toBe('visible');
    expect(sent.headers.authorization).toBe('Bearer HEADERSECRET');
    expect(sent.headers['x-plain']).toBe('shown');

    // A new value replaces the stored one; a mask under a key that had no sensitive value is refused.
    const replaced = await env.api<OutboundWebhook>('PUT', `/api/media/outbound-webhooks/${id}`, {
      query: [{ key: 'sig', value: 'NEWSECRET', sensitive: true }],
      url: `${receiver.base}/masked/new`,
    });
    expect(replaced.status).toBe(200);
    const refused = await env.api<ErrorAnswer>('PUT', `/api/media/outbound-webhooks/${id}`, {
      query: [{ key: 'sig2', value: OUTBOUND_WEBHOOK_MASK, sensitive: true }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details?.[0]?.path).toBe('/query/0/value');
    await env.api('POST', `/api/media/outbound-webhooks/${id}/test`);
    const again = new URL(arrived('/masked/').at(-1)!.url, 'http://x');
    expect(again.pathname).toBe('/masked/new');
    expect(again.searchParams.get('sig')).toBe('NEWSECRET');
    const stored = await sql<{ url: string; query: unknown }>`
      SELECT url, query FROM outbound_webhook_endpoints WHERE id = ${id}`.execute(env.parts.database.db);
    expect(stored.rows[0]!.url).toBe(`${receiver.base}/masked/new`);
    await remove(id);
  });

  it('delivers the events of a real scan to every subscribed endpoint, in all three content types', async () => {
    const json = await create({
      name: 'JSON',
      url: `${receiver.base}/json/{{library.id}}?title={{urlencode.media.title}}&year={{media.year}}`,
      allowPrivateNetwork: true,
      query: [{ key: 'lib', value: '{{library.name}}' }],
      headers: [
        { key: 'X-Title', value: '{{media.title}}' },
        { key: 'X-Event', value: '{{event.type}}' },
      ],
      libraryIds: [env.libraries.movies],
    });
    const form = await create({
      name: 'Form',
      method: 'PUT',
      url: `${receiver.base}/form`,
      contentType: 'application/x-www-form-urlencoded',
      body: 'title={{media.title}}&year={{media.year}}&lib={{library.name}}&event={{payloadJson}}',
      allowPrivateNetwork: true,
    });
    const text = await create({
      name: 'Text (shows only)',
      method: 'PATCH',
      url: `${receiver.base}/text`,
      contentType: 'text/plain',
      body: 'New: {{media.title}} in {{library.name}}',
      allowPrivateNetwork: true,
      libraryIds: [env.libraries.shows],
    });
    const get = await create({
      name: 'GET',
      method: 'GET',
      url: `${receiver.base}/get?t={{urlencode.media.title}}&id={{item.sourceItemId}}`,
      allowPrivateNetwork: true,
    });
    const disabled = await create({
      name: 'Off',
      url: `${receiver.base}/off`,
      enabled: false,
      allowPrivateNetwork: true,
    });

    await env.scan(env.libraries.movies);
    const events = await eventsOf(env.libraries.movies);
    expect(events.length).toBeGreaterThanOrEqual(3);
    await waitFor(async () =>
      arrived('/json/').length === events.length &&
      arrived('/form').length === events.length &&
      arrived('/get').length === events.length
        ? true
        : undefined,
    );

    for (const event of events) {
      const viaJson = arrived('/json/').find(
        (request) => request.headers['x-webhook-event-id'] === event.id,
      )!;
      expect(viaJson.method).toBe('POST');
      expect(viaJson.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(viaJson.headers['x-title']).toBe(event.media_title);
      expect(viaJson.headers['x-event']).toBe('media.added');
      const url = new URL(viaJson.url, 'http://x');
      expect(url.pathname).toBe(`/json/${env.libraries.movies}`);
      expect(viaJson.url).toContain(`title=${encodeURIComponent(event.media_title)}&`);
      expect(url.searchParams.get('year')).toBe(event.media_year === null ? '' : String(event.media_year));
      expect(url.searchParams.get('lib')).toBe('Movies');
      const body = JSON.parse(viaJson.body) as Record<string, unknown>;
      expect(body).toMatchObject({
        title: 'New media added',
        media: event.media_title,
        library: 'Movies',
        year: event.media_year,
        season: null,
        event: {
          event: { id: event.id, type: 'media.added' },
          library: { id: env.libraries.movies, name: 'Movies' },
          media: { title: event.media_title, type: 'movie' },
        },
      });

      const viaForm = arrived('/form').find((request) => request.headers['x-webhook-event-id'] === event.id)!;
      expect(viaForm.method).toBe('PUT');
      expect(viaForm.headers['content-type']).toBe('application/x-www-form-urlencoded; charset=utf-8');
      const fields = new URLSearchParams(viaForm.body);
      expect(fields.get('title')).toBe(event.media_title);
      expect(fields.get('lib')).toBe('Movies');
      expect((JSON.parse(fields.get('event')!) as { event: { id: string } }).event.id).toBe(event.id);

      const viaGet = arrived('/get').find((request) => request.headers['x-webhook-event-id'] === event.id)!;
      expect(viaGet.method).toBe('GET');
      expect(viaGet.body).toBe('');
      expect(viaGet.headers['content-type']).toBeUndefined();
      expect(new URL(viaGet.url, 'http://x').searchParams.get('t')).toBe(event.media_title);
    }
    // Subscribed to Shows only, and disabled: nothing.
    expect(arrived('/text')).toEqual([]);
    expect(arrived('/off')).toEqual([]);

    // The records: one per endpoint and event, delivered at the first attempt.
    const records = await deliveries();
    for (const endpoint of [json, form, get]) {
      const mine = records.filter((record) => record.endpointId === endpoint.id);
      expect(mine).toHaveLength(events.length);
      for (const record of mine) {
        expect(record).toMatchObject({
          endpointName: endpoint.name,
          eventType: 'media.added',
          test: false,
          status: 'SUCCEEDED',
          attempts: 1,
          maxAttempts: 4,
          lastHttpStatus: 200,
          lastError: null,
          responseExcerpt: 'ok',
          libraryName: 'Movies',
          nextAttemptAt: null,
        });
        expect(Date.parse(record.deliveredAt!)).toBeGreaterThanOrEqual(Date.parse(record.createdAt));
        expect(record.lastAttemptAt).toBe(record.deliveredAt);
        expect(events.map((event) => event.id)).toContain(record.eventId);
      }
    }

    // A Shows event reaches the Shows subscriber and the all-libraries endpoints, not the Movies one.
    const showEvent = await env.addEvent(env.libraries.shows, 'Shows', {
      media_type: 'series',
      media_title: 'Show',
      episode_season_number: 1,
      episode_episode_number: 2,
      episode_name: 'Second',
    });
    await waitFor(async () =>
      arrived('/text').length === 1 && arrived('/get').length === events.length + 1 ? true : undefined,
    );
    expect(arrived('/text')[0]).toMatchObject({ method: 'PATCH', body: 'New: Show in Shows' });
    expect(arrived('/text')[0]!.headers['content-type']).toBe('text/plain; charset=utf-8');
    await waitFor(async () => (arrived('/form').length === events.length + 1 ? true : undefined));
    expect(arrived('/json/')).toHaveLength(events.length);
    const showRecord = (await deliveriesOf(text.id))[0]!;
    expect(showRecord).toMatchObject({ eventId: showEvent, title: 'Show S01E02', libraryName: 'Shows' });

    // A title with quotes, backslashes and line breaks cannot break the JSON body.
    const tricky = 'The "Quoted" \\ Title\n{{media.title}} </script> ✓';
    await env.addEvent(env.libraries.movies, 'Movies', { media_title: tricky });
    await waitFor(async () => (arrived('/json/').length === events.length + 1 ? true : undefined));
    const trickyBody = JSON.parse(arrived('/json/').at(-1)!.body) as {
      media: string;
      event: { media: { title: string } };
    };
    expect(trickyBody.media).toBe(tricky);
    expect(trickyBody.event.media.title).toBe(tricky);
    // In a header the line break became a space and the text travels as UTF-8 bytes.
    const trickyHeader = arrived('/json/').at(-1)!.headers['x-title'] as string;
    expect(Buffer.from(trickyHeader, 'latin1').toString('utf8')).toBe(tricky.replace('\n', ' '));

    // Enabling the endpoint that was off does not send it the events of the time it was off.
    await env.api('PUT', `/api/media/outbound-webhooks/${disabled.id}`, { enabled: true });
    await env.deliverNow();
    expect(arrived('/off')).toEqual([]);
    for (const endpoint of [json, form, text, get, disabled]) await remove(endpoint.id);
  });

  it('retries a failing receiver with backoff until DEAD, and records every attempt', async () => {
    let flaky = 0;
    const failing = await startReceiver((request, response) => {
      response
        .writeHead(request.url.startsWith('/flaky') && flaky++ >= 2 ? 200 : 500)
        .end('receiver is broken');
    });
    try {
      const dead = await create({
        name: 'Broken',
        url: `${failing.base}/fail`,
        allowPrivateNetwork: true,
        libraryIds: [env.libraries.shows],
      });
      const recovering = await create({
        name: 'Flaky',
        url: `${failing.base}/flaky`,
        allowPrivateNetwork: true,
        libraryIds: [env.libraries.shows],
      });
      const gone = await create({
        name: 'Gone',
        url: `${receiver.base}/gone`,
        allowPrivateNetwork: true,
        libraryIds: [env.libraries.shows],
      });
      receiver.handle((request, response) =>
        request.url === '/gone' ? void response.writeHead(404).end('no such hook') : false,
      );
      const eventId = await env.addEvent(env.libraries.shows, 'Shows', { media_title: 'Retry me' });

      // Between the attempts the delivery is RETRYING with its next attempt planned.
      const retrying = await waitFor(async () => {
        const record = (await deliveriesOf(dead.id))[0];
        return record?.status === 'RETRYING' ? record : undefined;
      });
      expect(retrying).toMatchObject({ lastHttpStatus: 500, lastError: 'HTTP 500', deliveredAt: null });
      expect(retrying.attempts).toBeLessThan(4);
      expect(Date.parse(retrying.nextAttemptAt!) - Date.parse(retrying.lastAttemptAt!)).toBe(
        RETRY_DELAYS_MS[retrying.attempts - 1],
      );

      const final = await waitFor(async () => {
        const record = (await deliveriesOf(dead.id))[0];
        return record?.status === 'DEAD' ? record : undefined;
      }, 15_000);
      expect(final).toMatchObject({
        endpointName: 'Broken',
        eventId,
        status: 'DEAD',
        attempts: 4,
        maxAttempts: 4,
        lastHttpStatus: 500,
        lastError: 'HTTP 500',
        responseExcerpt: 'receiver is broken',
        deliveredAt: null,
        nextAttemptAt: null,
      });
      const attempts = failing.requests.filter((request) => request.url === '/fail');
      expect(attempts).toHaveLength(4);
      for (let index = 1; index < attempts.length; index++) {
        // Each wait is at least the planned delay (the task runs every 150 ms, so a little more).
        expect(attempts[index]!.at - attempts[index - 1]!.at).toBeGreaterThanOrEqual(
          RETRY_DELAYS_MS[index - 1]! - 20,
        );
      }
      expect(attempts.every((request) => request.headers['x-webhook-event-id'] === eventId)).toBe(true);
      expect(new Set(attempts.map((request) => request.headers['x-webhook-delivery-id'])).size).toBe(1);

      // Two failures, then the receiver recovers: SUCCEEDED at the third attempt.
      const recovered = await waitFor(async () => {
        const record = (await deliveriesOf(recovering.id))[0];
        return record?.status === 'SUCCEEDED' ? record : undefined;
      });
      expect(recovered).toMatchObject({
        attempts: 3,
        lastHttpStatus: 200,
        lastError: null,
        responseExcerpt: 'receiver is broken',
      });
      expect(recovered.deliveredAt).not.toBeNull();

      // A 404 is the receiver refusing the request: no retry.
      const refused = await waitFor(async () => {
        const record = (await deliveriesOf(gone.id))[0];
        return record?.status === 'DEAD' ? record : undefined;
      });
      expect(refused).toMatchObject({ attempts: 1, lastHttpStatus: 404, lastError: 'HTTP 404' });
      // An absence has no event to wait for: a window past the first retry delay.
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[0]! + 300));
      expect(arrived('/gone')).toHaveLength(1);
      for (const endpoint of [dead, recovering, gone]) await remove(endpoint.id);
    } finally {
      receiver.handle(null);
      await failing.close();
    }
  });

  it('deleting an endpoint deletes its unsent deliveries and keeps the finished ones', async () => {
    const failing = await startReceiver((request, response) => {
      response.writeHead(request.body.includes('"Fails"') ? 503 : 200).end();
    });
    try {
      const endpoint = await create({
        name: 'Doomed',
        url: `${failing.base}/doomed`,
        allowPrivateNetwork: true,
        body: '{"title": "{{media.title}}"}',
        libraryIds: [env.libraries.shows],
      });
      const ok = await env.addEvent(env.libraries.shows, 'Shows', { media_title: 'Works' });
      const bad = await env.addEvent(env.libraries.shows, 'Shows', { media_title: 'Fails' });
      await waitFor(async () => {
        const records = await deliveriesOf(endpoint.id);
        const statuses = new Map(records.map((record) => [record.eventId, record.status]));
        return statuses.get(ok) === 'SUCCEEDED' && statuses.get(bad) === 'RETRYING' ? true : undefined;
      });
      await remove(endpoint.id);
      const left = await sql<{
        event_id: string;
        status: string;
        endpoint_id: string | null;
        endpoint_name: string;
      }>`
        SELECT event_id, status, endpoint_id, endpoint_name FROM outbound_webhook_deliveries
        WHERE event_id IN (${ok}, ${bad}) AND endpoint_name = 'Doomed'`.execute(env.parts.database.db);
      expect(left.rows).toEqual([
        { event_id: ok, status: 'SUCCEEDED', endpoint_id: null, endpoint_name: 'Doomed' },
      ]);
      const listed = (await deliveries()).find((record) => record.eventId === ok)!;
      expect(listed).toMatchObject({ endpointId: null, endpointName: 'Doomed', status: 'SUCCEEDED' });
      // An attempt already on its way when the endpoint was deleted may still arrive; then nothing more
      // (an absence, so a window past the first retry delay rather than a condition).
      await new Promise((resolve) => setTimeout(resolve, 100));
      const sentBefore = failing.requests.length;
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[0]! + 400));
      expect(failing.requests.length).toBe(sentBefore);
    } finally {
      await failing.close();
    }
  });

  it('test sends a sample event now and answers the outcome; private targets are refused unless allowed', async () => {
    const endpoint = await create({
      name: 'Tester',
      url: `${receiver.base}/test/{{event.type}}`,
      allowPrivateNetwork: true,
    });
    const test = await env.api<OutboundWebhookTestResponse>(
      'POST',
      `/api/media/outbound-webhooks/${endpoint.id}/test`,
    );
    expect(test.status).toBe(200);
    expect(test.body).toMatchObject({ ok: true, httpStatus: 200, error: null, responseExcerpt: 'ok' });
    expect(test.body.delivery).toMatchObject({
      endpointId: endpoint.id,
      test: true,
      status: 'SUCCEEDED',
      attempts: 1,
      eventType: 'media.test',
    });
    const sent = arrived('/test/media.test').at(-1)!;
    const body = JSON.parse(sent.body) as { title: string; media: string; event: { event: { id: string } } };
    expect(body.title).toBe('New media added');
    expect(body.media).toContain('"Sample"');
    expect(body.event.event.id).toBe(test.body.delivery.eventId);
    expect((await deliveries('?limit=1'))[0]).toEqual(test.body.delivery);

    for (const url of [
      `http://localhost:${receiver.port}/private`,
      `http://hooks.internal.test:${receiver.port}/private`,
    ]) {
      const guarded = await create({ name: `Guarded ${url}`, url });
      const refused = await env.api<OutboundWebhookTestResponse>(
        'POST',
        `/api/media/outbound-webhooks/${guarded.id}/test`,
      );
      expect(refused.body, url).toMatchObject({ ok: false, httpStatus: null });
      expect(refused.body.error, url).toMatch(/not a public address/);
      expect(refused.body.delivery).toMatchObject({ status: 'DEAD', attempts: 1, lastHttpStatus: null });
      await remove(guarded.id);
    }
    expect(arrived('/private')).toEqual([]);

    // The same address through a real event delivery: refused at once (DEAD, one attempt), nothing sent.
    const guarded = await create({
      name: 'Guarded delivery',
      url: `http://localhost:${receiver.port}/private`,
      libraryIds: [env.libraries.shows],
    });
    const eventId = await env.addEvent(env.libraries.shows, 'Shows');
    const record = await waitFor(async () => {
      const found = (await deliveriesOf(guarded.id)).find((entry) => entry.eventId === eventId);
      return found?.status === 'DEAD' ? found : undefined;
    });
    expect(record).toMatchObject({ attempts: 1, lastHttpStatus: null });
    expect(record.lastError).toMatch(/localhost resolves to .*not a public address/);
    expect(arrived('/private')).toEqual([]);

    const latest = await deliveries();
    expect(latest.length).toBeLessThanOrEqual(50);
    const times = latest.map((entry: OutboundWebhookDelivery) => Date.parse(entry.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    await remove(endpoint.id);
    await remove(guarded.id);
  });
});
