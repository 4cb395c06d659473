import type { IncomingHttpHeaders } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FIELD_LIMITS,
  MAX_AUTHORIZATION_HEADER_LENGTH,
  formatAuthorizationHeader,
  parseAuthorizationParams,
  readClientAuthorization,
  safeDecode,
  type ClientAuthorization,
  type QueryInput,
} from '../../../src/services/play-agent/stream/authorization.js';

const EMPTY = { client: '', deviceName: '', deviceId: '', version: '' };
const EMBY_WEB =
  'MediaBrowser Client="Emby Web", Device="Firefox", DeviceId="TW96aWxsYQ", Version="4.8.0.80", Token="tok-1"';

describe('readClientAuthorization: table', () => {
  const cases: [string, IncomingHttpHeaders, QueryInput, ClientAuthorization][] = [
    [
      'the Emby web header',
      { 'x-emby-authorization': EMBY_WEB },
      undefined,
      {
        client: 'Emby Web',
        deviceName: 'Firefox',
        deviceId: 'TW96aWxsYQ',
        version: '4.8.0.80',
        token: 'tok-1',
        tokenSource: 'authorization',
      },
    ],
    [
      'Authorization with the Emby scheme, unquoted values, no spaces, a user id',
      { authorization: 'Emby UserId=u-1,Client=Infuse,Device=Apple%20TV,DeviceId=ATV1,Version=7.7' },
      undefined,
      { client: 'Infuse', deviceName: 'Apple TV', deviceId: 'ATV1', version: '7.7', userId: 'u-1' },
    ],
    [
      'scheme and names in any letter case, spaces around "="',
      { authorization: 'mediabrowser  client = "Kodi" ,DEVICE="Box", deviceid= "k1" , VeRsIoN ="1"' },
      undefined,
      { client: 'Kodi', deviceName: 'Box', deviceId: 'k1', version: '1' },
    ],
    [
      'percent-encoded values, + kept',
      {
        'x-emby-authorization':
          'MediaBrowser Device="Samsung%20TV%20%E2%9C%93", Client="a+b", Version="%7E1"',
      },
      undefined,
      { ...EMPTY, deviceName: 'Samsung TV ✓', client: 'a+b', version: '~1' },
    ],
    [
      'malformed escapes never throw',
      {
        'x-emby-authorization':
          'MediaBrowser Client="100%", Device="%zz%4", DeviceId="%E2%82", Version="%C0%AE"',
      },
      undefined,
      { client: '100%', deviceName: '%zz%4', deviceId: '\ufffd', version: '\ufffd\ufffd' },
    ],
    [
      'the first of a repeated name wins',
      { authorization: 'MediaBrowser Client="one", Client="two"' },
      undefined,
      { ...EMPTY, client: 'one' },
    ],
    [
      'pairs that are no pairs are skipped',
      { authorization: 'MediaBrowser junk, Client="a", =x, "q", Device="b"garbage, DeviceId=c' },
      undefined,
      { ...EMPTY, client: 'a', deviceName: 'b', deviceId: 'c' },
    ],
    [
      'an unterminated quote ends the header',
      { authorization: 'MediaBrowser Client="a", Device="b, DeviceId=c' },
      undefined,
      { ...EMPTY, client: 'a' },
    ],
    [
      'another scheme in X-Emby-Authorization falls through to Authorization',
      { 'x-emby-authorization': 'Bearer xyz', authorization: 'Emby Client="c"' },
      undefined,
      { ...EMPTY, client: 'c' },
    ],
    ['Bearer and Basic are not ours', { authorization: 'Bearer abc' }, undefined, EMPTY],
    [
      'a scheme glued to the first name is no scheme',
      { authorization: 'MediaBrowserClient="x"' },
      undefined,
      EMPTY,
    ],
    ['the bare scheme', { authorization: 'MediaBrowser' }, undefined, EMPTY],
    [
      'X-Emby-Token header',
      { 'x-emby-token': ' tok-h ' },
      undefined,
      { ...EMPTY, token: 'tok-h', tokenSource: 'header' },
    ],
    [
      'X-MediaBrowser-Token header',
      { 'x-mediabrowser-token': 'tok-m' },
      undefined,
      { ...EMPTY, token: 'tok-m', tokenSource: 'header' },
    ],
    [
      'the Token parameter beats the headers and the query',
      { authorization: 'MediaBrowser Token="tok-a"', 'x-emby-token': 'tok-h' },
      'api_key=tok-q',
      { ...EMPTY, token: 'tok-a', tokenSource: 'authorization' },
    ],
    [
      'an empty Token parameter falls through',
      { authorization: 'MediaBrowser Token=""', 'x-emby-token': 'tok-h' },
      undefined,
      { ...EMPTY, token: 'tok-h', tokenSource: 'header' },
    ],
    [
      'X-Emby-Token beats X-MediaBrowser-Token',
      { 'x-emby-token': 'one', 'x-mediabrowser-token': 'two' },
      undefined,
      { ...EMPTY, token: 'one', tokenSource: 'header' },
    ],
    ['api_key in the query', {}, 'api_key=tok-q', { ...EMPTY, token: 'tok-q', tokenSource: 'query' }],
    ['API_KEY in any case', {}, '?API_KEY=tok-q', { ...EMPTY, token: 'tok-q', tokenSource: 'query' }],
    [
      'ApiKey beats api_key',
      {},
      new URLSearchParams('api_key=two&ApiKey=one'),
      { ...EMPTY, token: 'one', tokenSource: 'query' },
    ],
    [
      'a parsed query with arrays',
      {},
      { ApiKey: ['one', 'two'], other: 5 },
      { ...EMPTY, token: 'one', tokenSource: 'query' },
    ],
    [
      'Emby web query parameters',
      {},
      {
        'X-Emby-Client': 'Emby Web',
        'X-Emby-Device-Name': 'Chrome Windows',
        'X-Emby-Device-Id': 'dev-9',
        'X-Emby-Client-Version': '4.8',
        'X-Emby-Token': 'tok-q',
      },
      {
        client: 'Emby Web',
        deviceName: 'Chrome Windows',
        deviceId: 'dev-9',
        version: '4.8',
        token: 'tok-q',
        tokenSource: 'query',
      },
    ],
    [
      'X-Emby-* headers fill what the authorization header lacks',
      {
        authorization: 'MediaBrowser Client="c"',
        'x-emby-client': 'ignored',
        'x-emby-device-name': 'My%20Phone',
        'x-emby-device-id': 'd',
      },
      'DeviceId=ignored',
      { ...EMPTY, client: 'c', deviceName: 'My Phone', deviceId: 'd' },
    ],
    ['DeviceId in the query', {}, 'deviceId=d-7', { ...EMPTY, deviceId: 'd-7' }],
    [
      'tokens with spaces, controls or over the cap are absent',
      { 'x-emby-token': 'a b', 'x-mediabrowser-token': 'x'.repeat(FIELD_LIMITS.token + 1) },
      'api_key=%0A',
      EMPTY,
    ],
    [
      'control characters are removed, long values cut',
      { authorization: `MediaBrowser Client="a%00b%0D%0Ac%7F%C2%85d", Version="${'9'.repeat(100)}"` },
      undefined,
      { ...EMPTY, client: 'abcd', version: '9'.repeat(FIELD_LIMITS.version) },
    ],
    [
      'a cut never leaves half a surrogate pair',
      { authorization: `MediaBrowser Version="${'1'.repeat(FIELD_LIMITS.version - 1)}%F0%9F%98%80"` },
      undefined,
      { ...EMPTY, version: '1'.repeat(FIELD_LIMITS.version - 1) },
    ],
    [
      'a header over 8 KiB is absent',
      {
        'x-emby-authorization': `MediaBrowser Client="a", Token="t", Device="${'x'.repeat(MAX_AUTHORIZATION_HEADER_LENGTH)}"`,
        'x-emby-token': 'tok-h',
      },
      undefined,
      { ...EMPTY, token: 'tok-h', tokenSource: 'header' },
    ],
    ['repeated headers given as arrays are not guessed at', { 'x-emby-token': ['a', 'b'] }, undefined, EMPTY],
  ];

  it.each(cases)('%s', (_name, headers, query, expected) => {
    expect(readClientAuthorization(headers, query)).toEqual(expected);
  });

  it('decodes safely', () => {
    expect(safeDecode('plain')).toBe('plain');
    expect(safeDecode('a%20b')).toBe('a b');
    expect(safeDecode('%')).toBe('%');
    expect(safeDecode('%%41%')).toBe('%A%');
    expect(safeDecode('%ff%41')).toBe('\ufffdA');
  });

  it('reads parameters of the two schemes only', () => {
    expect(parseAuthorizationParams('Basic a=b')).toBeNull();
    expect(parseAuthorizationParams(undefined)).toBeNull();
    expect([...parseAuthorizationParams('EMBY a=1, b="2"')!]).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
  });
});

describe('readClientAuthorization: fuzz', () => {
  const headerNames = fc.constantFrom('x-emby-authorization', 'authorization');

  const checkShape = (result: ClientAuthorization) => {
    for (const key of ['client', 'deviceName', 'deviceId', 'version'] as const) {
      expect(typeof result[key]).toBe('string');
      expect(result[key].length).toBeLessThanOrEqual(FIELD_LIMITS[key]);
      // eslint-disable-next-line no-control-regex
      expect(result[key]).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    }
    if (result.token !== undefined) {
      expect(result.token.length).toBeGreaterThan(0);
      expect(result.token).not.toMatch(/\s/);
    }
  };

  it('never throws and keeps every field in shape on random input', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 200, unit: 'binary' }),
      fc.string({ maxLength: 200, unit: 'binary' }).map((rest) => `MediaBrowser ${rest}`),
      fc
        .array(fc.constantFrom('"', ',', '=', ' ', '%', '%2', '%E2', 'Client', 'Token', 'x', '\t', 'é'), {
          maxLength: 60,
        })
        .map((parts) => `Emby ${parts.join('')}`),
    );
    fc.assert(
      fc.property(headerNames, text, fc.string({ maxLength: 100 }), (name, value, query) => {
        checkShape(readClientAuthorization({ [name]: value, 'x-emby-token': value }, query));
      }),
      { numRuns: 2_000 },
    );
  });

  it('round-trips well-formed headers: quoted or not, encoded, any order and letter case', () => {
    const field = (max: number) => fc.string({ maxLength: max, unit: 'binary' });
    const token = fc
      .string({ minLength: 1, maxLength: 60, unit: 'binary' })
      // eslint-disable-next-line no-control-regex
      .filter((value) => !/[\s\u0000-\u001f\u007f]/.test(value));
    const values = fc.record(
      {
        client: field(100),
        deviceName: field(100),
        deviceId: field(100),
        version: field(30),
        token,
        userId: field(50),
      },
      { requiredKeys: [] },
    );
    const style = fc.record({
      scheme: fc.constantFrom('MediaBrowser', 'mediabrowser', 'Emby', 'EMBY'),
      quote: fc.boolean(),
      separator: fc.constantFrom(',', ', ', ' , ', ',\t', ',,'),
      upper: fc.boolean(),
      header: headerNames,
      order: fc.nat(),
    });
    fc.assert(
      fc.property(values, style, (input, how) => {
        let header = formatAuthorizationHeader(input, how);
        if (how.upper)
          header = header.replace(
            /(^| )(\w+)=/g,
            (_m, space: string, key: string) => `${space}${key.toUpperCase()}=`,
          );
        // Rotate the parameters to vary their order.
        const [scheme, ...rest] = header.split(' ');
        const params = rest.join(' ').split(how.separator).filter(Boolean);
        const shift = params.length === 0 ? 0 : how.order % params.length;
        const rotated = [...params.slice(shift), ...params.slice(0, shift)];
        header = `${scheme} ${rotated.join(how.separator)}`;

        const result = readClientAuthorization({ [how.header]: header });
        const clean = (value: string | undefined) =>
          // eslint-disable-next-line no-control-regex
          (value ?? '').replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
        const expected: ClientAuthorization = {
          client: clean(input.client),
          deviceName: clean(input.deviceName),
          deviceId: clean(input.deviceId),
          version: clean(input.version),
        };
        if (clean(input.userId)) expected.userId = clean(input.userId);
        if (input.token !== undefined) {
          expected.token = input.token;
          expected.tokenSource = 'authorization';
        }
        expect(result).toEqual(expected);
        checkShape(result);
      }),
      { numRuns: 1_000 },
    );
  });

  it('reads a hostile 8 KiB header in bounded time', () => {
    const hostile = [
      `MediaBrowser ${'a='.repeat(4000)}`,
      `MediaBrowser ${',"'.repeat(4000)}`,
      `MediaBrowser ${'%'.repeat(8000)}`,
      `MediaBrowser Client="${'%E2%82'.repeat(1300)}"`,
      `MediaBrowser ${' '.repeat(8000)}`,
    ];
    const started = performance.now();
    for (let round = 0; round < 20; round++) {
      for (const value of hostile) checkShape(readClientAuthorization({ authorization: value }));
    }
    expect(performance.now() - started).toBeLessThan(500);
  });
});
