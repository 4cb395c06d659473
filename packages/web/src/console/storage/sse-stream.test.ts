import { describe, expect, it } from 'vitest';
import type { SseMessage } from './sse-parser.js';
import { readSseStream } from './sse-stream.js';

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

describe('readSseStream', () => {
  it('decodes UTF-8 split between chunks and reports messages in order', async () => {
    const bytes = new TextEncoder().encode('event: transfer\ndata: {"path":"电影/a.mkv"}\n\n: heartbeat\n');
    // Cut inside the three bytes of the first Chinese character.
    const cut = bytes.indexOf(0xe7) + 1;
    const messages: SseMessage[] = [];
    await readSseStream(streamOf([bytes.slice(0, cut), bytes.slice(cut)]), (message) =>
      messages.push(message),
    );
    expect(messages).toEqual([
      { kind: 'event', event: 'transfer', data: '{"path":"电影/a.mkv"}', id: '' },
      { kind: 'comment', text: 'heartbeat' },
    ]);
  });

  it('rejects when the stream fails', async () => {
    const failing = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: a\n\n'));
        controller.error(new Error('connection reset'));
      },
    });
    const messages: SseMessage[] = [];
    await expect(readSseStream(failing, (message) => messages.push(message))).rejects.toThrow(
      'connection reset',
    );
  });
});
