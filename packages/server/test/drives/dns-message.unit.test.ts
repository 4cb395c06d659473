import { describe, expect, it } from 'vitest';
import {
  DNS_TYPE_A,
  DNS_TYPE_AAAA,
  decodeDnsResponse,
  encodeDnsQuery,
} from '../../src/services/play-agent/cdn/dns-message.js';

/** A response to `query` with the given records (name pointers to the question, RFC 1035 4.1.4). */
function response(query: Buffer, records: { type: number; data: Buffer }[], rcode = 0): Buffer {
  const header = Buffer.from(query.subarray(0, 12));
  header.writeUInt16BE(0x8180 | rcode, 2);
  header.writeUInt16BE(records.length, 6);
  const answers = records.map(({ type, data }) => {
    const fixed = Buffer.alloc(12);
    fixed.writeUInt16BE(0xc00c, 0);
    fixed.writeUInt16BE(type, 2);
    fixed.writeUInt16BE(1, 4);
    fixed.writeUInt32BE(300, 6);
    fixed.writeUInt16BE(data.length, 10);
    return Buffer.concat([fixed, data]);
  });
  return Buffer.concat([header, query.subarray(12), ...answers]);
}

describe('DNS messages of the DoH resolver', () => {
  it('encodes a question as RFC 1035 labels with id 0 and recursion desired', () => {
    const query = encodeDnsQuery('cdn.example.com', DNS_TYPE_A);
    expect(query.readUInt16BE(0)).toBe(0);
    expect(query.readUInt16BE(2)).toBe(0x0100);
    expect(query.readUInt16BE(4)).toBe(1);
    expect(query.subarray(12).toString('latin1')).toBe('\x03cdn\x07example\x03com\x00\x00\x01\x00\x01');
    expect(() => encodeDnsQuery('a..b', DNS_TYPE_A)).toThrow();
  });

  it('reads A, AAAA (RFC 5952 text) and CNAME answers with compressed names', () => {
    const query = encodeDnsQuery('cdn.example.com', DNS_TYPE_AAAA);
    const v6 = Buffer.from('2001:0db8:0000:0000:0000:0000:0000:0001'.replace(/:/g, ''), 'hex');
    const cname = Buffer.from([4, ...Buffer.from('edge'), 0xc0, 12]);
    const decoded = decodeDnsResponse(
      response(query, [
        { type: 5, data: cname },
        { type: DNS_TYPE_A, data: Buffer.from([203, 0, 113, 7]) },
        { type: DNS_TYPE_AAAA, data: v6 },
      ]),
    );
    expect(decoded.rcode).toBe(0);
    expect(decoded.answers.map((answer) => [answer.name, answer.type, answer.data])).toEqual([
      ['cdn.example.com', 5, 'edge.cdn.example.com'],
      ['cdn.example.com', DNS_TYPE_A, '203.0.113.7'],
      ['cdn.example.com', DNS_TYPE_AAAA, '2001:db8::1'],
    ]);
  });

  it('reports NXDOMAIN, and refuses truncated messages, queries and pointer loops', () => {
    const query = encodeDnsQuery('nowhere.example', DNS_TYPE_A);
    expect(decodeDnsResponse(response(query, [], 3))).toEqual({ rcode: 3, answers: [] });
    const full = response(query, [{ type: DNS_TYPE_A, data: Buffer.from([1, 2, 3, 4]) }]);
    expect(() => decodeDnsResponse(full.subarray(0, full.length - 2))).toThrow(/truncated/);
    expect(() => decodeDnsResponse(query)).toThrow(/not a response/);
    const loop = Buffer.from(full);
    loop.writeUInt16BE(0xc000 | (full.length - 16), full.length - 16);
    expect(() => decodeDnsResponse(loop)).toThrow();
  });
});
