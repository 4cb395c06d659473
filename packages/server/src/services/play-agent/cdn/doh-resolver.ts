import { isIP } from 'node:net';
import { request, type Dispatcher } from 'undici';
import { isPublicAddress } from '../../../platform/http/address-policy.js';
import { DNS_TYPE_A, DNS_TYPE_AAAA, decodeDnsResponse, encodeDnsQuery } from './dns-message.js';

const DNS_MESSAGE = 'application/dns-message';
const TIMEOUT_MS = 5_000;
const MAX_ANSWER_BYTES = 65_535;

/**
 * DNS over HTTPS (RFC 8484): a host's A and AAAA records from every configured resolver, POSTed in the
 * wire format. The addresses of all resolvers that answered are joined (different resolvers see different
 * CDN nodes); a lookup fails only when none answered.
 */
export class DohResolver {
  constructor(
    private readonly options: {
      resolvers: readonly string[];
      dispatcher: Dispatcher;
      /** Keep loopback and private addresses (a LAN CDN or a test); else they are dropped. */
      allowPrivate: boolean;
    },
  ) {}

  get resolvers(): readonly string[] {
    return this.options.resolvers;
  }

  async resolve(hostname: string, signal?: AbortSignal): Promise<string[]> {
    if (isIP(hostname) !== 0) return [hostname];
    const problems: string[] = [];
    const found = new Set<string>();
    let answered = false;
    await Promise.all(
      this.options.resolvers.map(async (resolver) => {
        for (const type of [DNS_TYPE_A, DNS_TYPE_AAAA] as const) {
          try {
            for (const address of await this.ask(resolver, hostname, type, signal)) found.add(address);
            answered = true;
          } catch (error) {
            problems.push(`${new URL(resolver).host}: ${(error as Error).message}`);
          }
        }
      }),
    );
    if (!answered) throw new Error(`no DNS-over-HTTPS resolver answered (${problems.join('; ')})`);
    return [...found].filter((address) => this.options.allowPrivate || isPublicAddress(address));
  }

  private async ask(
    resolver: string,
    hostname: string,
    type: typeof DNS_TYPE_A | typeof DNS_TYPE_AAAA,
    signal?: AbortSignal,
  ): Promise<string[]> {
    const timeout = AbortSignal.timeout(TIMEOUT_MS);
    const response = await request(resolver, {
      method: 'POST',
      dispatcher: this.options.dispatcher,
      headers: { 'content-type': DNS_MESSAGE, accept: DNS_MESSAGE },
      body: encodeDnsQuery(hostname, type),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    const body = Buffer.from(await response.body.arrayBuffer());
    if (response.statusCode !== 200) throw new Error(`answered HTTP ${response.statusCode}`);
    const contentType = String(response.headers['content-type'] ?? '');
    if (!contentType.startsWith(DNS_MESSAGE)) throw new Error(`answered ${contentType || 'no content type'}`);
    if (body.length > MAX_ANSWER_BYTES) throw new Error('answered too much');
    const message = decodeDnsResponse(body);
    // NXDOMAIN is an answer (no addresses); other RCODEs are failures of the resolver.
    if (message.rcode !== 0 && message.rcode !== 3) throw new Error(`answered RCODE ${message.rcode}`);
    return message.answers
      .filter((record) => record.type === type && record.data !== null)
      .map((record) => record.data as string);
  }
}
