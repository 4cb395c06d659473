/**
 * When to read transfer progress from the event stream and when to poll instead. Pure: the caller feeds
 * in what happened (with the time) and carries out the actions it gets back.
 *
 * - The stream is the normal source. It counts as failed when it cannot be opened in time, ends, breaks,
 *   or goes silent: no transfer event for SILENCE_MS while a transfer runs (a running transfer sends
 *   progress several times a second), or nothing at all — not even the 15 s heartbeat — for IDLE_MS.
 * - Then the list is polled every POLL_MS, and the stream is tried again after a growing pause
 *   (the server's `retry:`, doubled per failure in a row, at most MAX_BACKOFF_MS). Polling goes on
 *   until the new stream delivers something: the server writes a comment and `retry:` at once, so a
 *   stream that opens but stays mute (a buffering proxy) never replaces polling.
 */

export const POLL_MS = 3000;
export const SILENCE_MS = 10_000;
export const IDLE_MS = 40_000;
export const CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRY_MS = 3000;
export const MAX_BACKOFF_MS = 30_000;

export type FeedMode = 'connecting' | 'stream' | 'polling';

export interface FeedState {
  mode: FeedMode;
  /** A stream request is under way or open. */
  connected: boolean;
  /** When the current connection attempt started. */
  connectStartedAt: number;
  lastEventAt: number;
  lastDataAt: number;
  lastPollAt: number | null;
  /** When to try the stream again (polling only). */
  reconnectAt: number | null;
  /** Stream failures in a row; reset by a transfer event. */
  failures: number;
  retryMs: number;
}

export type FeedInput =
  /** The response headers arrived; the stream counts only once it delivers data. */
  | { type: 'opened'; at: number }
  | { type: 'event'; at: number }
  /** Anything else read from the stream: a heartbeat comment, `retry:`. */
  | { type: 'data'; at: number; retryMs?: number }
  /** The stream ended, broke, or could not be opened. */
  | { type: 'closed'; at: number }
  /** Once a second; `running` = some transfer is running, so progress events are due. */
  | { type: 'tick'; at: number; running: boolean };

export type FeedAction = 'connect' | 'disconnect' | 'poll';

export interface FeedStep {
  state: FeedState;
  actions: FeedAction[];
}

/** The state at start; the caller opens the stream at once. */
export function startFeed(at: number): FeedStep {
  return {
    state: {
      mode: 'connecting',
      connected: true,
      connectStartedAt: at,
      lastEventAt: at,
      lastDataAt: at,
      lastPollAt: null,
      reconnectAt: null,
      failures: 0,
      retryMs: DEFAULT_RETRY_MS,
    },
    actions: ['connect'],
  };
}

export function backoffMs(failures: number, retryMs: number): number {
  const base = Math.max(retryMs, 1000);
  return Math.min(MAX_BACKOFF_MS, base * 2 ** Math.max(0, failures - 1));
}

/** The stream is given up: poll now and plan the next attempt. */
function fallBack(state: FeedState, at: number, disconnect: boolean): FeedStep {
  const failures = state.failures + 1;
  return {
    state: {
      ...state,
      mode: 'polling',
      connected: false,
      failures,
      lastPollAt: at,
      reconnectAt: at + backoffMs(failures, state.retryMs),
    },
    actions: disconnect ? ['disconnect', 'poll'] : ['poll'],
  };
}

export function feedStep(state: FeedState, input: FeedInput): FeedStep {
  switch (input.type) {
    case 'opened':
      return { state, actions: [] };
    case 'event':
    case 'data': {
      if (!state.connected) return { state, actions: [] };
      const live = state.mode === 'stream' ? state : { ...state, mode: 'stream' as const, reconnectAt: null };
      return {
        state:
          input.type === 'event'
            ? { ...live, lastEventAt: input.at, lastDataAt: input.at, failures: 0 }
            : {
                ...live,
                lastDataAt: input.at,
                // Coming back, the silence is counted from now.
                lastEventAt: state.mode === 'stream' ? live.lastEventAt : input.at,
                retryMs: input.retryMs ?? state.retryMs,
              },
        actions: [],
      };
    }
    case 'closed':
      if (!state.connected) return { state, actions: [] };
      return fallBack(state, input.at, false);
    case 'tick':
      return tick(state, input.at, input.running);
  }
}

function tick(state: FeedState, at: number, running: boolean): FeedStep {
  if (state.mode === 'stream') {
    const silent = running && at - state.lastEventAt > SILENCE_MS;
    const idle = at - state.lastDataAt > IDLE_MS;
    return silent || idle ? fallBack(state, at, true) : { state, actions: [] };
  }
  if (state.mode === 'connecting') {
    return at - state.connectStartedAt > CONNECT_TIMEOUT_MS
      ? fallBack(state, at, true)
      : { state, actions: [] };
  }
  // Polling; a new stream attempt may be under way (connected) and is given the same time to open.
  const actions: FeedAction[] = [];
  let next = state;
  if (state.connected && at - state.connectStartedAt > CONNECT_TIMEOUT_MS) {
    const failures = state.failures + 1;
    next = { ...next, connected: false, failures, reconnectAt: at + backoffMs(failures, state.retryMs) };
    actions.push('disconnect');
  }
  if (next.lastPollAt === null || at - next.lastPollAt >= POLL_MS) {
    next = { ...next, lastPollAt: at };
    actions.push('poll');
  }
  if (!next.connected && next.reconnectAt !== null && at >= next.reconnectAt) {
    next = { ...next, connected: true, connectStartedAt: at, reconnectAt: null };
    actions.push('connect');
  }
  return { state: next, actions };
}
