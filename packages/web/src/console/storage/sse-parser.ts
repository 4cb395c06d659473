import { createParser } from 'eventsource-parser';

/**
 * An incremental parser of `text/event-stream` (the WHATWG "event stream interpretation", done by the
 * `eventsource-parser` package): feed it decoded text in pieces of any size, get back the messages
 * completed so far. Comments (`: heartbeat`) and `retry:` are reported too, so a caller can tell a live
 * but quiet stream from a dead one.
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
  let out: SseMessage[] = [];
  // The last event id stays until another `id:` line replaces it (the stream's "last event ID").
  let lastEventId = '';
  const parser = createParser({
    onId(id) {
      lastEventId = id;
    },
    onEvent(event) {
      out.push({ kind: 'event', event: event.event ?? 'message', data: event.data, id: lastEventId });
    },
    onComment(text) {
      out.push({ kind: 'comment', text: text.replace(/^ /, '') });
    },
    onRetry(milliseconds) {
      out.push({ kind: 'retry', milliseconds });
    },
  });
  return {
    push(text) {
      parser.feed(text);
      const completed = out;
      out = [];
      return completed;
    },
  };
}
