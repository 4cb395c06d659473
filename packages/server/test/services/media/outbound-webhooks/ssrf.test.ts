import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAddress, isPublicAddress } from '../../../../src/platform/http/address-policy.js';
import {
  SafeHttpClient,
  systemResolver,
  type Resolver,
} from '../../../../src/services/media/webhooks/outbound/safe-http-client.js';
import { startReceiver, type Receiver } from './receiver.js';

/** Names the tests resolve themselves; everything else goes to the system resolver (localhost). */
const NAMES: Record<string, string[]> = {
  'evil.test': ['127.0.0.1'],
  'v6-loopback.test': ['::1'],
  'metadata.test': ['169.254.169.254'],
  // One public and one private address: refused, since any address could be the one connected to.
  'mixed.test': ['93.184.216.34', '10.0.0.5'],
  'public.test': ['127.0.0.1'],
  'other-public.test': ['127.0.0.1'],
};
const resolver: Resolver = async (name) => NAMES[name] ?? systemResolver(name);

describe('address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456:789a::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'ipv4Mapped:loopback'],
    ['::ffff:10.0.0.1', 'ipv4Mapped:private'],
    ['::ffff:169.254.169.254', 'ipv4Mapped:linkLocal'],
    ['::ffff:0:7f00:1', 'ipv4Translated:loopback'],
    ['64:ff9b::7f00:1', 'nat64:loopback'],
    ['64:ff9b::a9fe:a9fe', 'nat64:linkLocal'],
    ['2002:7f00:1::1', '6to4:loopback'],
    ['2002:c0a8:101::1', '6to4:private'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['::7f00:1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['not-an-address', 'invalid'],
  ])('refuses %s (%s)', (address, range) => {
    expect(classifyAddress(address)).toEqual({ allowed: false, range });
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '[2a00:1450:4001:82a::200e]',
  ])('allows %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('SSRF guard of the webhook HTTP client, against real receivers on 127.0.0.1', () => {
  let receiver: Receiver;
  let privateReceiver: Receiver;
  let otherReceiver: Receiver;
  let client: SafeHttpClient;
  let guarded: SafeHttpClient;

  beforeAll(async () => {
    receiver = await startReceiver();
    privateReceiver = await startReceiver();
    otherReceiver = await startReceiver();
    // Plain client: the real address policy; only the test names above are resolved by the test.
    client = new SafeHttpClient({ resolve: resolver, timeoutMs: 3_000 });
    // "Public" client: 127.0.0.1 on the ports of `receiver` and `otherReceiver` counts as public (they stand
    // for servers on the internet); every other address, the private receiver's port included, is judged by
    // the real policy.
    guarded = new SafeHttpClient({
      resolve: resolver,
      timeoutMs: 3_000,
      isPermitted: (address, port) =>
        (address === '127.0.0.1' && (port === receiver.port || port === otherReceiver.port)) ||
        isPublicAddress(address),
    });
  });
  afterAll(async () => {
    await client?.close();
    await guarded?.close();
    await receiver?.close();
    await privateReceiver?.close();
    await otherReceiver?.close();
  });

  const send = (url: string, allowPrivateNetwork = false, via = client) =>
    via.send({
      method: 'POST',
      url,
      headers: { 'content-type': 'text/plain' },
      body: 'x',
      allowPrivateNetwork,
    });

  const loopbackTricks = () => {
    const p = privateReceiver.port;
    return [
      `http://127.0.0.1:${p}/plain`,
      `http://2130706433:${p}/decimal`,
      `http://0177.0.0.1:${p}/octal`,
      `http://017700000001:${p}/octal-whole`,
      `http://0x7f.0.0.1:${p}/hex`,
      `http://0x7f000001:${p}/hex-whole`,
      `http://0x7f.1:${p}/hex-short`,
      `http://127.1:${p}/short`,
      `http://127.0.1:${p}/short3`,
      `http://127.000.000.001:${p}/zero-padded`,
      `http://127.0.0.1.:${p}/trailing-dot`,
      `http://①②⑦.0.0.1:${p}/fullwidth-digits`,
      `http://[::ffff:127.0.0.1]:${p}/mapped`,
      `http://[0:0:0:0:0:ffff:7f00:1]:${p}/mapped-long`,
      `http://localhost:${p}/localhost`,
      `http://LOCALHOST:${p}/localhost-upper`,
      `http://evil.test:${p}/custom-name`,
      `http://user:pass@127.0.0.1:${p}/credentials`,
    ];
  };

  it('refuses at least 30 private targets and tricks, none of which gets a connection', async () => {
    const p = privateReceiver.port;
    const refused = [
      ...loopbackTricks(),
      `http://[::1]:${p}/`,
      `http://0.0.0.0:${p}/`,
      `http://0:${p}/`,
      `http://[::]:${p}/`,
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:a9fe:a9fe]/latest/meta-data/',
      'http://metadata.test/latest/meta-data/',
      'http://10.0.0.1/',
      'http://10.255.255.254:8080/',
      'http://172.16.0.1/',
      'http://172.31.255.254/',
      'http://192.168.1.1/',
      'http://100.64.0.1/',
      'http://[fc00::1]/',
      'http://[fd00:ec2::254]/',
      'http://[fe80::1]/',
      `http://[64:ff9b::7f00:1]:${p}/`,
      'http://[64:ff9b::a00:1]/',
      'http://[2002:7f00:1::1]/',
      'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
      'http://[::7f00:1]/',
      'http://255.255.255.255/',
      'http://224.0.0.1/',
      'http://[ff02::1]/',
      'http://192.0.2.1/',
      'http://v6-loopback.test/',
      'http://mixed.test/',
    ];
    expect(refused.length).toBeGreaterThanOrEqual(30);
    for (const url of refused) {
      const outcome = await send(url);
      expect(outcome, url).toMatchObject({ status: null, refused: true });
      expect(outcome.error, url).toMatch(/not a public address/);
      expect(outcome.durationMs, url).toBeLessThan(2_000);
    }
    expect(privateReceiver.requests).toEqual([]);
  });

  it('refuses schemes other than http and https', async () => {
    for (const url of ['ftp://example.com/', 'file:///etc/passwd', 'gopher://127.0.0.1:70/', 'data:,x']) {
      const outcome = await send(url, true);
      expect(outcome, url).toMatchObject({ refused: true, status: null });
      expect(outcome.error, url).toMatch(/scheme .* is not allowed/);
    }
  });

  it('reaches loopback through every one of those forms when the endpoint allows private networks', async () => {
    const before = privateReceiver.requests.length;
    for (const url of loopbackTricks()) {
      const outcome = await send(url, true);
      expect(outcome, url).toMatchObject({ status: 200, refused: false, error: null, excerpt: 'ok' });
    }
    const paths = privateReceiver.requests.slice(before).map((request) => request.url);
    expect(paths).toContain('/decimal');
    expect(paths).toContain('/mapped');
    // Credentials in the URL become a Basic authorization header and leave the URL.
    const withCredentials = privateReceiver.requests.find((request) => request.url === '/credentials')!;
    expect(withCredentials.headers.authorization).toBe(
      `Basic ${Buffer.from('user:pass').toString('base64')}`,
    );
  });

  it('lets a public target through and re-checks every redirect target', async () => {
    const p = privateReceiver.port;
    const publicBase = `http://public.test:${receiver.port}`;
    receiver.handle((request, response) => {
      const to = new URL(request.url, 'http://x').searchParams.get('to');
      if (!to) return false;
      response.writeHead(302, { location: to }).end();
    });
    try {
      expect(await send(`${publicBase}/hello`, false, guarded)).toMatchObject({ status: 200, excerpt: 'ok' });
      // A public-looking target that answers with a redirect to a private address: refused at the second hop.
      for (const target of [
        `http://127.0.0.1:${p}/secret`,
        `http://localhost:${p}/secret`,
        `http://2130706433:${p}/secret`,
        `http://[::ffff:127.0.0.1]:${p}/secret`,
        'http://169.254.169.254/latest/meta-data/',
        'http://evil.test/',
      ]) {
        const outcome = await send(`${publicBase}/r?to=${encodeURIComponent(target)}`, false, guarded);
        expect(outcome, target).toMatchObject({ status: null, refused: true, redirects: 1 });
        expect(outcome.error, target).toMatch(/not a public address/);
      }
      const scheme = await send(
        `${publicBase}/r?to=${encodeURIComponent('file:///etc/passwd')}`,
        false,
        guarded,
      );
      expect(scheme).toMatchObject({ refused: true, redirects: 1 });
      expect(privateReceiver.requests.filter((request) => request.url === '/secret')).toEqual([]);

      // The same redirect to the private receiver is followed when the endpoint allows private networks.
      const allowed = await send(
        `${publicBase}/r?to=${encodeURIComponent(`http://127.0.0.1:${p}/secret`)}`,
        true,
        guarded,
      );
      expect(allowed).toMatchObject({ status: 200, redirects: 1 });
      // 303 and 302 after a POST turn into a GET without a body, as browsers do.
      expect(privateReceiver.requests.find((request) => request.url === '/secret')).toMatchObject({
        method: 'GET',
        body: '',
      });
    } finally {
      receiver.handle(null);
    }
  });

  it('follows at most 5 redirects, keeps method and body on 307, drops credentials on another origin', async () => {
    receiver.handle((request, response) => {
      const hops = /^\/hop\/(\d+)/.exec(request.url);
      if (hops) {
        response.writeHead(302, { location: `/hop/${Number(hops[1]) + 1}` }).end();
        return;
      }
      if (request.url === '/keep') {
        response.writeHead(307, { location: `http://other-public.test:${otherReceiver.port}/kept` }).end();
        return;
      }
      return false;
    });
    try {
      const loop = await send(`http://public.test:${receiver.port}/hop/0`, false, guarded);
      expect(loop).toMatchObject({ status: 302, redirects: 5, error: 'more than 5 redirects' });
      expect(receiver.requests.filter((request) => request.url.startsWith('/hop/'))).toHaveLength(6);

      const kept = await guarded.send({
        method: 'POST',
        url: `http://public.test:${receiver.port}/keep`,
        headers: {
          'content-type': 'application/json',
          authorization: 'Bearer s3cret',
          'x-api-key': 'k3y',
          'x-plain': 'p',
        },
        body: '{"a":1}',
        allowPrivateNetwork: false,
        sensitiveHeaders: ['x-api-key'],
      });
      expect(kept).toMatchObject({ status: 200, redirects: 1 });
      const arrived = otherReceiver.requests.find((request) => request.url === '/kept')!;
      expect(arrived).toMatchObject({ method: 'POST', body: '{"a":1}' });
      expect(arrived.headers.host).toBe(`other-public.test:${otherReceiver.port}`);
      expect(arrived.headers['x-plain']).toBe('p');
      expect(arrived.headers.authorization).toBeUndefined();
      expect(arrived.headers['x-api-key']).toBeUndefined();
    } finally {
      receiver.handle(null);
    }
  });

  it('gives up after the timeout and keeps only a short excerpt of a long answer', async () => {
    const slow = new SafeHttpClient({ timeoutMs: 300 });
    receiver.handle((request, response) => {
      if (request.url === '/slow') return; // never answers
      if (request.url === '/big') {
        response
          .writeHead(500, { 'content-type': 'text/plain', 'retry-after': '7' })
          .end('x'.repeat(200_000));
        return;
      }
      return false;
    });
    try {
      const timedOut = await slow.send({
        method: 'GET',
        url: `${receiver.base}/slow`,
        headers: {},
        allowPrivateNetwork: true,
      });
      expect(timedOut).toMatchObject({ status: null, refused: false, error: 'no answer within 300 ms' });
      const big = await slow.send({
        method: 'GET',
        url: `${receiver.base}/big`,
        headers: {},
        allowPrivateNetwork: true,
      });
      expect(big).toMatchObject({ status: 500, retryAfterMs: 7_000 });
      expect(big.excerpt).toHaveLength(512);
    } finally {
      receiver.handle(null);
      await slow.close();
    }
  });
});
