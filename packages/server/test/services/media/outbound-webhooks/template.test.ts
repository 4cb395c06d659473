import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OUTBOUND_WEBHOOK_BODIES,
  OUTBOUND_WEBHOOK_CONTENT_TYPES,
  OUTBOUND_WEBHOOK_DATA_VARIABLES,
  OUTBOUND_WEBHOOK_VARIABLES,
  maskOutboundWebhookUrl,
} from '@svc/contracts';
import type { MediaEventPayload } from '../../../../src/services/media/events/media-events.repository.js';
import { buildRequest } from '../../../../src/services/media/webhooks/outbound/request-builder.js';
import {
  bodyContext,
  renderTemplate,
  sampleEvent,
  unknownVariables,
  variableValue,
} from '../../../../src/services/media/webhooks/outbound/template.js';

const tricky = 'He said "hi" \\ & left\n\t— 100% <b>ünï</b> 🎬';
const event: MediaEventPayload = {
  event: { id: 'e1', type: 'media.added', occurredAt: '2026-01-02T03:04:05.000Z' },
  library: { id: 'lib-1', name: 'Films & "Series"' },
  media: {
    id: 'm1',
    type: 'movie',
    title: tricky,
    originalTitle: null,
    year: 1995,
    releaseDate: '1995-12-15',
    tmdbId: '949',
    imdbId: 'tt0113277',
    posterPath: '/p.jpg',
    posterUrl: 'https://img.example/p.jpg?a=1&b=2',
    overview: null,
  },
  episode: { seasonNumber: null, episodeNumber: null, name: null },
  item: { sourceItemId: 'i1', name: 'Heat (1995).mkv' },
  summary: { newTitles: 1, newItems: 3 },
};

describe('outbound webhook templates', () => {
  it('lists the 24 data variables and 26 selector entries, each resolvable', () => {
    expect(OUTBOUND_WEBHOOK_DATA_VARIABLES).toHaveLength(24);
    expect(OUTBOUND_WEBHOOK_VARIABLES).toHaveLength(26);
    expect(new Set(OUTBOUND_WEBHOOK_VARIABLES.map((v) => v.name)).size).toBe(26);
    for (const variable of OUTBOUND_WEBHOOK_VARIABLES) {
      expect(variable.token).toBe(`{{${variable.name}}}`);
      expect(unknownVariables(variable.token), variable.name).toEqual([]);
      expect(unknownVariables(`{{urlencode.${variable.name.replace(/^urlencode\./, '')}}}`)).toEqual([]);
    }
    const sample = sampleEvent(new Date(), 'id');
    for (const variable of OUTBOUND_WEBHOOK_DATA_VARIABLES.filter((v) => v.name !== 'payloadJson')) {
      expect(variableValue(sample, variable.name), variable.name).not.toBeUndefined();
      expect(variableValue(sample, variable.name), variable.name).not.toBeNull();
    }
  });

  it('finds unknown variables and leaves text that is no placeholder alone', () => {
    expect(
      unknownVariables('{{media.titel}} {{ media.title }} {{urlencode.nope}} {{x}} {{ }} {{1}} {'),
    ).toEqual(['media.titel', 'urlencode.nope', 'x']);
    expect(renderTemplate('{{ }} {{1}} {{ media.title', event, 'text')).toBe('{{ }} {{1}} {{ media.title');
  });

  it('writes values raw in URLs and text, URL-encoded with the urlencode. prefix', () => {
    expect(
      renderTemplate(
        'https://h/x/{{library.id}}/{{media.year}}?t={{urlencode.media.title}}&n={{episode.name}}',
        event,
        'url',
      ),
    ).toBe(`https://h/x/lib-1/1995?t=${encodeURIComponent(tricky)}&n=`);
    expect(renderTemplate('{{media.title}} | {{urlencode.library.name}}', event, 'text')).toBe(
      `${tricky} | Films%20%26%20%22Series%22`,
    );
    expect(renderTemplate('X {{media.title}}', event, 'header')).toBe(`X ${tricky.replace(/[\n\t]/g, ' ')}`);
  });

  it('encodes form values exactly once, with or without the prefix', () => {
    const body = renderTemplate(
      'a={{media.title}}&b={{urlencode.media.title}}&y={{media.year}}',
      event,
      'form',
    );
    const parsed = new URLSearchParams(body);
    expect(parsed.get('a')).toBe(tricky);
    expect(parsed.get('b')).toBe(tricky);
    expect(parsed.get('y')).toBe('1995');
    expect([...parsed.keys()]).toEqual(['a', 'b', 'y']);
  });

  it('JSON: escapes inside strings, writes JSON values outside, so no title can break the document', () => {
    const template =
      '{"t":"{{media.title}}","quoted":"«{{library.name}}»","year":{{media.year}},"none":{{media.overview}},' +
      '"noneText":"{{media.overview}}","title":{{media.title}},"enc":"{{urlencode.media.title}}",' +
      '"n":{{summary.newItems}},"event":{{payloadJson}},"eventText":"{{payloadJson}}",' +
      '"esc":"a\\"{{item.name}}\\\\","ph":"{{ media.year }}"}';
    const parsed = JSON.parse(renderTemplate(template, event, 'json')) as Record<string, unknown>;
    expect(parsed).toEqual({
      t: tricky,
      quoted: '«Films & "Series"»',
      year: 1995,
      none: null,
      noneText: '',
      title: tricky,
      enc: encodeURIComponent(tricky),
      n: 3,
      event,
      eventText: JSON.stringify(event),
      esc: 'a"Heat (1995).mkv\\',
      ph: '1995',
    });
  });

  it('gives valid JSON from every default body, and the JSON default says "New media added"', () => {
    for (const contentType of OUTBOUND_WEBHOOK_CONTENT_TYPES) {
      const template = DEFAULT_OUTBOUND_WEBHOOK_BODIES[contentType];
      expect(unknownVariables(template)).toEqual([]);
      const rendered = renderTemplate(template, event, bodyContext(contentType));
      expect(rendered).toContain(
        contentType === 'application/x-www-form-urlencoded' ? 'New+media+added' : 'New media added',
      );
    }
    const json = JSON.parse(
      renderTemplate(DEFAULT_OUTBOUND_WEBHOOK_BODIES['application/json'], event, 'json'),
    ) as Record<string, unknown>;
    expect(json).toMatchObject({ title: 'New media added', media: tricky, year: 1995, season: null, event });
  });

  it('builds the request: query table encoded once, headers, Content-Type, no body for GET', () => {
    const endpoint = {
      method: 'POST' as const,
      url: 'https://hooks.example/{{library.id}}?fixed=a%20b',
      content_type: 'text/plain' as const,
      query: [
        { key: 'title', value: '{{media.title}}', sensitive: false },
        { key: 'k&y', value: '{{urlencode.library.name}}', sensitive: true },
      ],
      headers: [
        { key: 'X-Title', value: '{{media.title}}', sensitive: false },
        { key: 'User-Agent', value: 'mine', sensitive: false },
        { key: 'X-Static', value: 'Überschrift\r\nX-Injected: 1', sensitive: false },
      ],
      body: '{{media.title}}',
      allow_private_network: false,
    };
    const built = buildRequest(endpoint, event, 'd1');
    const url = new URL(built.url);
    expect(url.pathname).toBe('/lib-1');
    expect(url.search.startsWith('?fixed=a%20b&')).toBe(true);
    expect(url.searchParams.get('title')).toBe(tricky);
    expect(url.searchParams.get('k&y')).toBe('Films & "Series"');
    expect(built.headers).toMatchObject({
      'content-type': 'text/plain; charset=utf-8',
      'X-Title': Buffer.from(tricky.replace(/[\n\t]/g, ' '), 'utf8').toString('latin1'),
      'User-Agent': 'mine',
      'x-webhook-event-id': 'e1',
      'x-webhook-delivery-id': 'd1',
    });
    expect(built.headers['user-agent']).toBeUndefined();
    expect(Buffer.from(built.headers['X-Static']!, 'latin1').toString('utf8')).toBe(
      'Überschrift  X-Injected: 1',
    );
    expect(built.body).toBe(tricky);
    const get = buildRequest({ ...endpoint, method: 'GET' }, event, 'd2');
    expect(get.body).toBeUndefined();
    expect(get.headers['content-type']).toBeUndefined();
  });

  it('masks a sensitive URL down to scheme and host', () => {
    expect(maskOutboundWebhookUrl('https://user:pw@hooks.example.com:8443/t/SECRET?k=v')).toBe(
      'https://hooks.example.com:8443/******',
    );
    expect(maskOutboundWebhookUrl('{{media.title}}')).toBe('******');
  });
});
