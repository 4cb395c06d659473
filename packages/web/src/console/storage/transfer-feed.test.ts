import { describe, expect, it } from 'vitest';
import {
  CONNECT_TIMEOUT_MS,
  IDLE_MS,
  MAX_BACKOFF_MS,
  POLL_MS,
  SILENCE_MS,
  backoffMs,
  feedStep,
  startFeed,
  type FeedAction,
  type FeedInput,
  type FeedState,
} from './transfer-feed.js';

/** Runs inputs in order, collecting every action with the time it was asked for. */
function run(inputs: FeedInput[], start = startFeed(0)) {
  let state: FeedState = start.state;
  const log: { at: number; action: FeedAction }[] = start.actions.map((action) => ({ at: 0, action }));
  for (const input of inputs) {
    const step = feedStep(state, input);
    state = step.state;
    for (const action of step.actions) log.push({ at: input.at, action });
  }
  return { state, log };
}

const ticks = (from: number, to: number, running: boolean): FeedInput[] => {
  const out: FeedInput[] = [];
  for (let at = from; at <= to; at += 1000) out.push({ type: 'tick', at, running });
  return out;
};

describe('transfer feed', () => {
  it('connects at start and stays on a live stream without polling', () => {
    const inputs: FeedInput[] = [
      { type: 'opened', at: 100 },
      { type: 'data', at: 100 },
    ];
    for (let at = 1000; at <= 30_000; at += 1000) {
      inputs.push({ type: 'event', at: at - 500 }, { type: 'tick', at, running: true });
    }
    const { state, log } = run(inputs);
    expect(state.mode).toBe('stream');
    expect(log).toEqual([{ at: 0, action: 'connect' }]);
  });

  it('falls back to polling every 3 s when the stream closes, then reconnects after the pause', () => {
    const { state, log } = run([
      { type: 'opened', at: 100 },
      { type: 'data', at: 100 },
      { type: 'closed', at: 2000 },
      ...ticks(3000, 9000, false),
    ]);
    const polls = log.filter((entry) => entry.action === 'poll').map((entry) => entry.at);
    expect(polls).toEqual([2000, 5000, 8000]);
    // The first retry comes after the default retry time (3 s).
    expect(log.filter((entry) => entry.action === 'connect').map((entry) => entry.at)).toEqual([0, 5000]);
    expect(state.mode).toBe('polling');
    expect(state.connected).toBe(true);
  });

  it('keeps polling while a new stream is open but mute, and drops it after the connect timeout', () => {
    const { state, log } = run([
      { type: 'closed', at: 0 },
      ...ticks(1000, 3000, false),
      { type: 'opened', at: 3100 },
      ...ticks(4000, 3000 + CONNECT_TIMEOUT_MS + 1000, false),
    ]);
    expect(state.mode).toBe('polling');
    expect(log.filter((entry) => entry.action === 'poll').map((entry) => entry.at)).toEqual([
      0, 3000, 6000, 9000, 12_000,
    ]);
    expect(log).toContainEqual({ at: 3000 + CONNECT_TIMEOUT_MS + 1000, action: 'disconnect' });
  });

  it('goes back to the stream once it delivers again', () => {
    const { state, log } = run([
      { type: 'opened', at: 100 },
      { type: 'data', at: 100 },
      { type: 'closed', at: 2000 },
      ...ticks(3000, 5000, false),
      { type: 'opened', at: 5200 },
      { type: 'data', at: 5200 },
      ...ticks(6000, 20_000, false),
    ]);
    expect(state.mode).toBe('stream');
    expect(log.filter((entry) => entry.action === 'poll' && entry.at > 5200)).toEqual([]);
  });

  it('treats a silent stream as failed while a transfer runs', () => {
    const { state, log } = run([
      { type: 'opened', at: 0 },
      { type: 'data', at: 0 },
      { type: 'event', at: 1000 },
      ...ticks(2000, 1000 + SILENCE_MS + 1000, true),
    ]);
    expect(state.mode).toBe('polling');
    const at = 1000 + SILENCE_MS + 1000;
    expect(log).toContainEqual({ at, action: 'disconnect' });
    expect(log).toContainEqual({ at, action: 'poll' });
  });

  it('accepts quiet while nothing runs, as long as heartbeats arrive', () => {
    const inputs: FeedInput[] = [
      { type: 'opened', at: 0 },
      { type: 'data', at: 0 },
    ];
    for (let at = 1000; at <= 120_000; at += 1000) {
      if (at % 15_000 === 0) inputs.push({ type: 'data', at });
      inputs.push({ type: 'tick', at, running: false });
    }
    expect(run(inputs).state.mode).toBe('stream');
  });

  it('gives up a stream that sends nothing at all, not even heartbeats', () => {
    const { state } = run([
      { type: 'opened', at: 0 },
      { type: 'data', at: 0 },
      ...ticks(1000, IDLE_MS + 1000, false),
    ]);
    expect(state.mode).toBe('polling');
  });

  it('gives up a connection that does not open in time', () => {
    const { state, log } = run(ticks(1000, CONNECT_TIMEOUT_MS + 1000, false));
    expect(state.mode).toBe('polling');
    expect(log).toContainEqual({ at: CONNECT_TIMEOUT_MS + 1000, action: 'disconnect' });
  });

  it('backs off further after each failure in a row and resets on an event', () => {
    expect(backoffMs(1, 3000)).toBe(3000);
    expect(backoffMs(2, 3000)).toBe(6000);
    expect(backoffMs(3, 3000)).toBe(12_000);
    expect(backoffMs(10, 3000)).toBe(MAX_BACKOFF_MS);
    const failing = run([
      { type: 'closed', at: 0 },
      ...ticks(1000, 3000, false),
      { type: 'closed', at: 3500 },
    ]);
    expect(failing.state.failures).toBe(2);
    expect(failing.state.reconnectAt).toBe(3500 + 6000);
    const recovered = run(
      [
        { type: 'opened', at: 4000 },
        { type: 'event', at: 4100 },
      ],
      { state: { ...failing.state, connected: true }, actions: [] },
    );
    expect(recovered.state.failures).toBe(0);
  });

  it('uses the retry time the server asks for', () => {
    const { state } = run([
      { type: 'opened', at: 0 },
      { type: 'data', at: 0 },
      { type: 'data', at: 10, retryMs: 5000 },
      { type: 'closed', at: 100 },
    ]);
    expect(state.reconnectAt).toBe(5100);
  });

  it('ignores messages of a connection it already gave up', () => {
    const { state } = run([
      { type: 'closed', at: 0 },
      { type: 'opened', at: 10 },
      { type: 'event', at: 20 },
    ]);
    expect(state.mode).toBe('polling');
  });

  it('polls at the polling interval only', () => {
    const { log } = run([{ type: 'closed', at: 0 }, ...ticks(1000, 12_000, false)]);
    const polls = log.filter((entry) => entry.action === 'poll').map((entry) => entry.at);
    for (let index = 1; index < polls.length; index += 1) {
      expect(polls[index]! - polls[index - 1]!).toBeGreaterThanOrEqual(POLL_MS);
    }
    expect(polls.length).toBe(5);
  });
});
