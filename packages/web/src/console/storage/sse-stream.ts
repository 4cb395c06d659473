import { createSseParser, type SseMessage } from './sse-parser.js';

/**
 * Reads an event stream body to its end, handing every message to `onMessage` as soon as it is complete.
 * The bytes are decoded as UTF-8 in streaming mode, so a character split between two network chunks
 * arrives whole. Resolves when the server ends the stream; rejects when reading fails (or is aborted).
 */
export async function readSseStream(
  body: ReadableStream<Uint8Array>,
  onMessage: (message: SseMessage) => void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  const parser = createSseParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const message of parser.push(decoder.decode(value, { stream: true }))) onMessage(message);
    }
    for (const message of parser.push(decoder.decode())) onMessage(message);
  } finally {
    reader.releaseLock();
  }
}
