import { useCallback, useEffect, useEffectEvent, useMemo, useState } from 'react';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { endpoints, type LibraryScanResponse, type ScanMode, type ScanStatus } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client.js';
import { useSession } from '../../session/session.js';
import { useErrorText } from '../../shell/error-alert.js';
import { ACTIVE_POLL_MS, isScanActive, newerScan, scanPollInterval, watchEnded } from './scan-progress.js';
import {
  endpointQueryKey,
  invalidateEndpoints,
  useEndpointMutation,
  useEndpointQuery,
} from '../../api/endpoint-hooks.js';

/**
 * A library's scan: start one, and while one is queued or running poll GET …/scan every second (live
 * progress); when it ends, the library list, detail and items are fetched again and a toast tells the result.
 */
export function useLibraryScan(libraryId: string, libraryName: string, listed: ScanStatus | null) {
  const { t } = useTranslation('libraries');
  const errorText = useErrorText();
  const queryClient = useQueryClient();
  const { app } = useSession();
  const scanKey = useMemo(
    () => endpointQueryKey(app, endpoints.media.getScan, { params: { id: libraryId } }),
    [app, libraryId],
  );
  // When the watch of a scan began: answers fetched before it do not tell that scan's end.
  const [since, setSince] = useState<number | null>(() => (isScanActive(listed) ? Date.now() : null));

  const query = useEndpointQuery(
    endpoints.media.getScan,
    { params: { id: libraryId } },
    {
      enabled: since !== null,
      refetchInterval: (current) =>
        since !== null && current.state.dataUpdatedAt < since
          ? ACTIVE_POLL_MS
          : scanPollInterval(current.state.data),
    },
  );
  const ended = since !== null && watchEnded(query.data, query.dataUpdatedAt, since);
  const watching = since !== null && !ended;

  // A scan started elsewhere (another tab, a webhook) shows up in the list: watch it too, once per scan.
  const listedKey = isScanActive(listed) ? (listed?.id ?? '') : null;
  const [seenListed, setSeenListed] = useState(listedKey);
  if (listedKey !== seenListed) {
    setSeenListed(listedKey);
    // Answers newer than the one in hand tell this scan's end.
    if (listedKey !== null && !watching) setSince(query.dataUpdatedAt + 1);
  }

  // The watched scan ended: fetch the library again and say how it went.
  const announceEnd = useEffectEvent(() => {
    void invalidateEndpoints(queryClient, app, [endpoints.media.listLibraries]);
    const scan = query.data?.scan;
    if (!scan) return;
    notifications.show(
      scan.state === 'succeeded'
        ? {
            color: scan.error ? 'yellow' : 'green',
            message: t('scan.finished', {
              name: libraryName,
              added: scan.itemsAdded,
              updated: scan.itemsUpdated,
              removed: scan.itemsRemoved,
            }),
          }
        : { color: 'red', message: t('scan.failedToast', { name: libraryName }) },
    );
  });
  useEffect(() => {
    if (ended) announceEnd();
  }, [ended]);

  const start = useEndpointMutation((call, mode: ScanMode) =>
    call(endpoints.media.startScan, { params: { id: libraryId }, body: { mode } }),
  );
  const startScan = useCallback(
    (mode: ScanMode) =>
      start.mutate(mode, {
        onSuccess: (scan) => {
          const now = Date.now();
          queryClient.setQueryData<LibraryScanResponse>(scanKey, { scan, pendingTasks: 1 });
          setSince(now);
          notifications.show({ color: 'blue', message: t('scan.started', { name: libraryName }) });
        },
        onError: (error) => {
          notifications.show({ color: 'red', message: errorText(error) });
          // One is running already: show its progress.
          if (error instanceof ApiError && error.code === 'SCAN_IN_PROGRESS') setSince(Date.now());
        },
      }),
    [start, queryClient, scanKey, t, libraryName, errorText],
  );

  const scan = newerScan(query.data?.scan, listed);
  return {
    scan,
    active: watching || isScanActive(scan),
    pendingTasks: query.data?.pendingTasks ?? 0,
    startScan,
    starting: start.isPending,
  };
}
