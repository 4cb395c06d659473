import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactUrl } from '../../src/platform/logger.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  return { lines, logger: createLogger({ level: 'info', component: 'test', destination }) };
}

describe('logger redaction', () => {
  it.each([
    ['/Videos/1/stream?api_key=SECRET1&Static=true', '/Videos/1/stream?api_key=[REDACTED]&Static=true'],
    ['/x?ApiKey=SECRET2', '/x?ApiKey=[REDACTED]'],
    ['/x?X-Emby-Token=SECRET3', '/x?X-Emby-Token=[REDACTED]'],
    [
      '/api/config/binaries/svc-play-agent?token=SECRET4',
      '/api/config/binaries/svc-play-agent?token=[REDACTED]',
    ],
    ['/api/config/nodes/install/SECRET5/binary', '/api/config/nodes/install/[REDACTED]/binary'],
    ['/api/webhook/SECRET6?data=x', '/api/webhook/[REDACTED]?data=x'],
    [
      'https://cdn.example/f?sign=SECRET7&expires=SECRET8',
      'https://cdn.example/f?sign=[REDACTED]&expires=[REDACTED]',
    ],
  ])('redacts %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('keeps credentials out of logged requests and headers', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        req: { method: 'GET', url: '/Items?api_key=SECRET9', headers: { authorization: 'Bearer SECRET10' } },
        headers: { 'x-admin-token': 'SECRET11', 'x-emby-token': 'SECRET12', accept: 'application/json' },
        password: 'SECRET13',
      },
      'request',
    );
    logger.flush();
    const output = lines.join('');
    expect(output).toContain('application/json');
    for (let i = 9; i <= 13; i++) expect(output).not.toContain(`SECRET${i}`);
  });
});
