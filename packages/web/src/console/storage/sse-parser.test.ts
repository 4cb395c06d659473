import { describe, expect, it } from 'vitest';
import { createSseParser, type SseMessage } from './sse-parser.js';

function parseAll(pieces: string[]): SseMessage[] {
  const parser = createSseParser();
  return pieces.flatMap((piece) => parser.push(piece));
}

describe('SSE parser', () => {
  it('parses a named event with JSON data', () => {
    expect(parseAll(['event: transfer\ndata: {"id":"a"}\n\n'])).toEqual([
      { kind: 'event', event: 'transfer', data: '{"id":"a"}', id: '' },
    ]);
  });

  it('defaults the type to message and joins data lines with LF', () => {
    expect(parseAll(['data: one\ndata:two\n\n'])).toEqual([
      { kind: 'event', event: 'message', data: 'one\ntwo', id: '' },
    ]);
  });

  it('waits for the blank line before dispatching', () => {
    const parser = createSseParser();
    expect(parser.push('event: transfer\ndata: {"a"')).toEqual([]);
    expect(parser.push(':1}\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ kind: 'event', event: 'transfer', data: '{"a":1}', id: '' }]);
  });

  it('handles text split at every position', () => {
    const stream = 'retry: 3000\n: heartbeat\n\nevent: transfer\r\ndata: x\r\n\r\nid: 7\ndata: y\n\n';
    const whole = parseAll([stream]);
    expect(whole).toEqual([
      { kind: 'retry', milliseconds: 3000 },
      { kind: 'comment', text: 'heartbeat' },
      { kind: 'event', event: 'transfer', data: 'x', id: '' },
      { kind: 'event', event: 'message', data: 'y', id: '7' },
    ]);
    for (let cut = 1; cut < stream.length; cut += 1) {
      expect(parseAll([stream.slice(0, cut), stream.slice(cut)])).toEqual(whole);
    }
    expect(parseAll([...stream])).toEqual(whole);
  });

  it('treats CR alone as a line end, also across pieces', () => {
    expect(parseAll(['data: a\r', '\r'])).toEqual([{ kind: 'event', event: 'message', data: 'a', id: '' }]);
    expect(parseAll(['data: a\r', '\n\r\n'])).toEqual([
      { kind: 'event', event: 'message', data: 'a', id: '' },
    ]);
  });

  it('drops a leading byte order mark and ignores unknown fields and bad retry values', () => {
    expect(parseAll(['\uFEFFdata: a\nfoo: bar\nretry: 1s\n\n'])).toEqual([
      { kind: 'event', event: 'message', data: 'a', id: '' },
    ]);
  });

  it('does not dispatch events without data and resets the type after each event', () => {
    expect(parseAll(['event: transfer\n\ndata: b\n\n'])).toEqual([
      { kind: 'event', event: 'message', data: 'b', id: '' },
    ]);
  });

  it('keeps a field without a colon as an empty value and only one leading space', () => {
    expect(parseAll(['data\ndata:  two spaces\n\n'])).toEqual([
      { kind: 'event', event: 'message', data: '\n two spaces', id: '' },
    ]);
  });

  it('joins multi-line data arriving in chunks split inside lines, and keeps the last id', () => {
    const parser = createSseParser();
    expect(parser.push('id: 4\nevent: tran')).toEqual([]);
    expect(parser.push('sfer\ndata: {"id":\nda')).toEqual([]);
    expect(parser.push('ta: "a"}\n\ndata: next\n')).toEqual([
      { kind: 'event', event: 'transfer', data: '{"id":\n"a"}', id: '4' },
    ]);
    expect(parser.push('\n')).toEqual([{ kind: 'event', event: 'message', data: 'next', id: '4' }]);
  });
});
