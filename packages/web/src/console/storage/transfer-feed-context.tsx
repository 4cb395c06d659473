import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { endpoints, type Transfer, transferEventSchema } from '@svc/contracts';
import { authHeaders } from '../../api/client.js';
import { useSession } from '../../session/session.js';
import type { SseMessage } from './sse-parser.js';
import { readSseStream } from './sse-stream.js';
import { useStorageTarget } from './storage-query.js';
import { invalidateEndpoints } from '../../api/endpoint-hooks.js';
import { feedStep, startFeed, type FeedAction, type FeedInput, type FeedMode } from './transfer-feed.js';
import { anyRunning, upsertTransfers, type LiveTransfers } from './transfer-merge.js';
import { callEndpoint, endpointPath } from '../../api/endpoint-client.js';

const EVENTS_PATH = endpointPath(endpoints.storage.transferEvents);

interface TransferFeedValue {
  live: LiveTransfers;
  mode: FeedMode;
  /** Adds transfers this page learnt about itself (the answer of a copy, cancel or retry). */
  add(transfers: readonly Transfer[]): void;
}

const TransferFeedContext = createContext<TransferFeedValue | undefined>(undefined);

export function useTransferFeed(): TransferFeedValue {
  const value = useContext(TransferFeedContext);
  if (!value) throw new Error('useTransferFeed outside TransferFeedProvider');
  return value;
}

/**
 * Live transfer progress for the storage page: the event stream read with fetch (so it carries the
 * console's headers), falling back to polling the list every 3 s while the stream is down or silent
 * (transfer-feed.ts decides), and back to the stream when it opens again.
 */
export function TransferFeedProvider({ children }: { children: ReactNode }) {
  const { credentials, app } = useSession();
  const target = useStorageTarget();
  const queryClient = useQueryClient();
  const [live, setLive] = useState<LiveTransfers>(() => new Map());
  const [mode, setMode] = useState<FeedMode>('connecting');
  const liveRef = useRef(live);

  const add = useCallback(
    (incoming: readonly Transfer[]) => {
      const before = liveRef.current;
      const next = upsertTransfers(before, incoming);
      if (next === before) return;
      liveRef.current = next;
      setLive(next);
      // A transfer that finished changed folders: show them fresh.
      for (const transfer of incoming) {
        const previous = before.get(transfer.id);
        if (transfer.state === 'succeeded' && previous?.state !== 'succeeded') {
          for (const mountId of new Set([transfer.source.mountId, transfer.target.mountId])) {
            void invalidateEndpoints(queryClient, app, [endpointPath(endpoints.storage.browse, { mountId })]);
          }
        }
      }
    },
    [queryClient, app],
  );

  useEffect(() => {
    // A new node or account starts from scratch.
    liveRef.current = new Map();
    setLive(liveRef.current);
    const headers = target.headers;
    let disposed = false;
    let generation = 0;
    let controller: AbortController | undefined;
    const first = startFeed(Date.now());
    let state = first.state;

    const apply = (input: FeedInput) => {
      if (disposed) return;
      const step = feedStep(state, input);
      state = step.state;
      setMode(state.mode);
      run(step.actions);
    };

    const onMessage = (own: number, message: SseMessage) => {
      if (own !== generation) return;
      const at = Date.now();
      if (message.kind === 'event' && message.event === 'transfer') {
        try {
          const parsed = transferEventSchema.safeParse(JSON.parse(message.data));
          if (parsed.success) add([parsed.data]);
        } catch {
          // A broken line: ignore it, the next one brings the newer state anyway.
        }
        apply({ type: 'event', at });
      } else if (message.kind === 'retry') {
        apply({ type: 'data', at, retryMs: message.milliseconds });
      } else {
        apply({ type: 'data', at });
      }
    };

    const connect = () => {
      controller?.abort();
      const own = ++generation;
      const current = new AbortController();
      controller = current;
      void (async () => {
        try {
          const response = await fetch(EVENTS_PATH, {
            headers: { accept: 'text/event-stream', ...authHeaders(credentials), ...headers },
            cache: 'no-store',
            signal: current.signal,
          });
          if (own !== generation) return;
          if (!response.ok || !response.body) {
            apply({ type: 'closed', at: Date.now() });
            return;
          }
          apply({ type: 'opened', at: Date.now() });
          await readSseStream(response.body, (message) => onMessage(own, message));
        } catch {
          // Network failure or our own abort: handled below.
        }
        if (own === generation) apply({ type: 'closed', at: Date.now() });
      })();
    };

    const poll = () => {
      void callEndpoint(credentials, endpoints.storage.listTransfers, {
        query: { page: 1, pageSize: 50 },
        headers,
      })
        .then((answer) => {
          if (!disposed) add(answer.items);
        })
        .catch(() => undefined);
    };

    const run = (actions: FeedAction[]) => {
      for (const action of actions) {
        if (action === 'connect') connect();
        else if (action === 'poll') poll();
        else {
          generation += 1;
          controller?.abort();
        }
      }
    };

    setMode(state.mode);
    run(first.actions);
    const timer = setInterval(
      () => apply({ type: 'tick', at: Date.now(), running: anyRunning(liveRef.current) }),
      1000,
    );
    return () => {
      disposed = true;
      generation += 1;
      clearInterval(timer);
      controller?.abort();
    };
  }, [credentials, target.headers, add]);

  const value = useMemo(() => ({ live, mode, add }), [live, mode, add]);
  return <TransferFeedContext.Provider value={value}>{children}</TransferFeedContext.Provider>;
}
