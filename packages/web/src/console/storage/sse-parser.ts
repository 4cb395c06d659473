/**
 * An incremental parser of `text/event-stream` (the WHATWG "event stream interpretation"): feed it
 * decoded text in pieces of any size, get back the messages completed so far. Lines end in CRLF, LF or
 * CR (also split across pieces); a leading byte order mark is dropped; comments (`: heartbeat`) and
 * `retry:` are reported too, so a caller can tell a live but quiet stream from a dead one.
 */

export type SseMessage =
  | { kind: 'event'; event: string; data: string; id: string }
  | { kind: 'comment'; text: string }
  | { kind: 'retry'; milliseconds: number };

export interface SseParser {
  /** Parses the next piece of text; answers the messages it completed. */
  push(text: string): SseMessage[];
}

export function createSseParser(): SseParser {
  let buffer = '';
  let started = false;
  /** The previous piece ended in CR: a LF at the start of the next one belongs to that line end. */
  let pendingCr = false;
  let eventType = '';
  let data: string[] = [];
  let lastEventId = '';

  function line(text: string, out: SseMessage[]): void {
    if (text === '') {
      if (data.length > 0) {
        out.push({ kind: 'event', event: eventType || 'message', data: data.join('\n'), id: lastEventId });
      }
      eventType = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) {
      out.push({ kind: 'comment', text: text.slice(1).replace(/^ /, '') });
      return;
    }
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(colon + 1).replace(/^ /, '');
    switch (field) {
      case 'event':
        eventType = value;
        break;
      case 'data':
        data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) out.push({ kind: 'retry', milliseconds: Number(value) });
        break;
      default:
        // Unknown fields are ignored.
        break;
    }
  }

  return {
    push(text) {
      const out: SseMessage[] = [];
      let chunk = text;
      if (!started && chunk.length > 0) {
        started = true;
        if (chunk.startsWith('\uFEFF')) chunk = chunk.slice(1);
      }
      if (pendingCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
      pendingCr = false;
      buffer += chunk;
      let start = 0;
      for (let index = 0; index < buffer.length; index += 1) {
        const char = buffer[index];
        if (char !== '\n' && char !== '\r') continue;
        line(buffer.slice(start, index), out);
        if (char === '\r') {
          if (index + 1 >= buffer.length) pendingCr = true;
          else if (buffer[index + 1] === '\n') index += 1;
        }
        start = index + 1;
      }
      buffer = buffer.slice(start);
      return out;
    },
  };
}
