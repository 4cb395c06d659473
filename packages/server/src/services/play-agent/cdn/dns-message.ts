/**
 * The DNS wire format (RFC 1035 section 4) as far as a DNS-over-HTTPS lookup of a host's addresses needs
 * it: one question out, the A / AAAA records of the answer section back (names may be compressed).
 * Written here because no maintained DNS message library is installed in the project.
 */

export const DNS_TYPE_A = 1;
export const DNS_TYPE_AAAA = 28;
const DNS_CLASS_IN = 1;

/**
 * A query for `name`. The id is 0, as RFC 8484 section 4.1 recommends for caching; recursion desired.
 */
export function encodeDnsQuery(name: string, type: typeof DNS_TYPE_A | typeof DNS_TYPE_AAAA): Buffer {
  const labels = name.replace(/\.$/, '').split('.');
  const header = Buffer.alloc(12);
  header.writeUInt16BE(0, 0); // id
  header.writeUInt16BE(0x0100, 2); // flags: RD
  header.writeUInt16BE(1, 4); // QDCOUNT
  const parts: Buffer[] = [header];
  for (const label of labels) {
    const bytes = Buffer.from(label, 'ascii');
    if (bytes.length === 0 || bytes.length > 63) throw new Error(`'${name}' is not a host name`);
    parts.push(Buffer.from([bytes.length]), bytes);
  }
  const tail = Buffer.alloc(5);
  tail.writeUInt8(0, 0); // root label
  tail.writeUInt16BE(type, 1);
  tail.writeUInt16BE(DNS_CLASS_IN, 3);
  parts.push(tail);
  return Buffer.concat(parts);
}

/** One record of a message's answer section. */
export interface DnsAnswer {
  name: string;
  type: number;
  ttl: number;
  /** The address of an A or AAAA record; the target name of a CNAME; else null. */
  data: string | null;
}

export interface DnsResponse {
  /** RCODE: 0 = no error, 3 = no such name. */
  rcode: number;
  answers: DnsAnswer[];
}

class Reader {
  constructor(
    readonly buffer: Buffer,
    public offset = 0,
  ) {}

  need(bytes: number): void {
    if (this.offset + bytes > this.buffer.length) throw new Error('the DNS message is truncated');
  }
  u8(): number {
    this.need(1);
    return this.buffer.readUInt8(this.offset++);
  }
  u16(): number {
    this.need(2);
    const value = this.buffer.readUInt16BE(this.offset);
    this.offset += 2;
    return value;
  }
  u32(): number {
    this.need(4);
    const value = this.buffer.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  /** A domain name at the current offset, following compression pointers (section 4.1.4). */
  name(): string {
    const labels: string[] = [];
    let position = this.offset;
    let jumped = false;
    for (let hops = 0; hops < 128; hops += 1) {
      if (position >= this.buffer.length) throw new Error('the DNS message is truncated');
      const length = this.buffer.readUInt8(position);
      if ((length & 0xc0) === 0xc0) {
        if (position + 1 >= this.buffer.length) throw new Error('the DNS message is truncated');
        const target = ((length & 0x3f) << 8) | this.buffer.readUInt8(position + 1);
        if (!jumped) this.offset = position + 2;
        jumped = true;
        position = target;
        continue;
      }
      if (length === 0) {
        if (!jumped) this.offset = position + 1;
        return labels.join('.');
      }
      if (length > 63) throw new Error('the DNS message has a bad label');
      if (position + 1 + length > this.buffer.length) throw new Error('the DNS message is truncated');
      labels.push(this.buffer.toString('ascii', position + 1, position + 1 + length));
      position += 1 + length;
    }
    throw new Error('the DNS message has a name pointer loop');
  }
}

function ipv6Text(bytes: Buffer): string {
  const groups: string[] = [];
  for (let index = 0; index < 16; index += 2) groups.push(bytes.readUInt16BE(index).toString(16));
  // The longest run of zero groups (two or more) becomes '::' (RFC 5952).
  let best = { start: -1, length: 0 };
  for (let start = 0; start < 8;) {
    if (groups[start] !== '0') {
      start += 1;
      continue;
    }
    let end = start;
    while (end < 8 && groups[end] === '0') end += 1;
    if (end - start > best.length) best = { start, length: end - start };
    start = end;
  }
  if (best.length < 2) return groups.join(':');
  const head = groups.slice(0, best.start).join(':');
  const tail = groups.slice(best.start + best.length).join(':');
  return `${head}::${tail}`;
}

/** Parses a response message: its RCODE and the records of its answer section. */
export function decodeDnsResponse(message: Buffer): DnsResponse {
  const reader = new Reader(message);
  reader.u16(); // id
  const flags = reader.u16();
  if ((flags & 0x8000) === 0) throw new Error('the DNS message is not a response');
  const questions = reader.u16();
  const answerCount = reader.u16();
  reader.u16(); // NSCOUNT
  reader.u16(); // ARCOUNT
  for (let index = 0; index < questions; index += 1) {
    reader.name();
    reader.u16();
    reader.u16();
  }
  const answers: DnsAnswer[] = [];
  for (let index = 0; index < answerCount; index += 1) {
    const name = reader.name();
    const type = reader.u16();
    reader.u16(); // class
    const ttl = reader.u32();
    const length = reader.u16();
    reader.need(length);
    const start = reader.offset;
    let data: string | null = null;
    if (type === DNS_TYPE_A && length === 4) {
      data = [...message.subarray(start, start + 4)].join('.');
    } else if (type === DNS_TYPE_AAAA && length === 16) {
      data = ipv6Text(message.subarray(start, start + 16));
    } else if (type === 5) {
      data = new Reader(message, start).name();
    }
    reader.offset = start + length;
    answers.push({ name, type, ttl, data });
  }
  return { rcode: flags & 0x000f, answers };
}
