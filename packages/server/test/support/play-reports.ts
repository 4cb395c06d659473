import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { SERVICE_TOKEN_HEADER } from '../../src/platform/service-token.js';
import { call, type Json } from './playback-install.js';
import { waitFor } from './runtime.js';

/** Reports a play of `itemId` to the play-agent as a player does: started at 0, stopped 1 s in. */
export async function reportStartStop(
  playAgent: string,
  token: string,
  itemId: string,
  session: string,
): Promise<void> {
  for (const [route, body] of [
    ['/Sessions/Playing', { ItemId: itemId, PlaySessionId: session, PositionTicks: 0 }],
    ['/Sessions/Playing/Stopped', { ItemId: itemId, PlaySessionId: session, PositionTicks: 10_000_000 }],
  ] as const) {
    const reported = await call(playAgent, 'POST', route, { headers: { 'x-emby-token': token }, body });
    expect(reported.status, reported.text).toBeLessThan(300);
  }
}

/**
 * The activity events of one play session of a standalone install (its user service, read with the install's
 * service token), once the session's stop is in the log.
 */
export function finishedSessionEvents(install: {
  userPort: string | number;
  dataDir: string;
  userId: string;
  session: string;
}): Promise<Json[]> {
  const serviceToken = readFileSync(path.join(install.dataDir, 'secrets', 'service-token'), 'utf8').trim();
  return waitFor(
    async () => {
      const log = await call(
        `http://127.0.0.1:${install.userPort}`,
        'GET',
        `/api/auth/internal/activity?userId=${install.userId}&limit=100`,
        { headers: { [SERVICE_TOKEN_HEADER]: serviceToken } },
      );
      const mine = (log.body.events as Json[]).filter((event) => event.sessionId === install.session);
      return mine.some((event) => event.eventType === 'stop') ? mine : undefined;
    },
    60_000,
    250,
  );
}
