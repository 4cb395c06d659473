import { useState } from 'react';
import { Alert, Badge, Button, Card, Group, Loader, NumberInput, Stack, Text, Title } from '@mantine/core';
import { DIAGNOSTICS_DEFAULT_HOLD_SECONDS, endpoints, type DiagnosticCheck } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation, useEndpointQuery } from '../../api/endpoint-hooks.js';
import { registerMessages } from '../../i18n/i18n.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { QueryState } from '../../shell/query-state.js';
import { diagnosticsMessages } from './diagnostics-messages.js';

registerMessages('diagnostics', diagnosticsMessages);

const COLOR = { ok: 'green', problem: 'red', skipped: 'gray' } as const;
/** How often a running check is asked for its result. */
const POLL_MS = 2_000;

/**
 * The doctor's checks as `svc doctor` prints them (permission `node`, docs/reverse-proxy.md): the
 * application probes the manual addresses' playback sites and this console's own site, and reads the node
 * records. A run holds its probes for a while, so it is started and then read back until it is done.
 */
export default function DiagnosticsPage() {
  const { t } = useTranslation('diagnostics');
  const [holdSeconds, setHoldSeconds] = useState<number>(DIAGNOSTICS_DEFAULT_HOLD_SECONDS);
  const [runId, setRunId] = useState<string | null>(null);
  const start = useEndpointMutation((call, hold: number) =>
    call(endpoints.diagnostics.startRun, {
      // The console's address as this browser reaches it: the application checks the same site.
      body: { consoleUrl: window.location.origin, holdSeconds: hold },
    }),
  );
  const run = useEndpointQuery(
    endpoints.diagnostics.getRun,
    { params: { runId: runId ?? '00000000-0000-4000-8000-000000000000' } },
    {
      enabled: runId !== null,
      refetchInterval: (query) => (query.state.data?.state === 'done' ? false : POLL_MS),
    },
  );
  const running = start.isPending || (runId !== null && run.data?.state !== 'done');
  return (
    <Stack gap="md" data-testid="diagnostics-page">
      <Title order={1} size="h3">
        {t('title')}
      </Title>
      <Text size="sm" c="dimmed">
        {t('intro')}
      </Text>
      <Group align="flex-end" gap="xs">
        <NumberInput
          label={t('hold')}
          description={t('holdHint')}
          min={1}
          max={110}
          value={holdSeconds}
          onChange={(value) =>
            setHoldSeconds(typeof value === 'number' ? value : DIAGNOSTICS_DEFAULT_HOLD_SECONDS)
          }
          style={{ maxWidth: 260 }}
          data-testid="diagnostics-hold"
        />
        <Button
          onClick={() => start.mutate(holdSeconds, { onSuccess: (started) => setRunId(started.runId) })}
          loading={running}
          data-testid="diagnostics-run"
        >
          {t('run')}
        </Button>
      </Group>
      {start.isError && <ErrorAlert error={start.error} />}
      {runId !== null && (
        <QueryState query={run} skeletonRows={4}>
          {(answer) =>
            answer.state !== 'done' ? (
              <Alert color="blue" icon={<Loader size="xs" />} data-testid="diagnostics-running">
                {t('running', { seconds: holdSeconds })}
              </Alert>
            ) : (
              <Stack gap="xs" data-testid="diagnostics-results">
                {answer.checks.map((check, index) => (
                  <CheckCard key={`${check.id}-${check.subject ?? ''}-${index}`} check={check} />
                ))}
              </Stack>
            )
          }
        </QueryState>
      )}
    </Stack>
  );
}

function CheckCard({ check }: { check: DiagnosticCheck }) {
  const { t } = useTranslation('diagnostics');
  return (
    <Card withBorder padding="sm" data-testid={`diagnostics-check-${check.id}`} data-status={check.status}>
      <Group justify="space-between" wrap="nowrap">
        <Text fw={600}>
          {t(`check.${check.id}`, { defaultValue: check.title })}
          {check.subject && (
            <Text span c="dimmed" fw={400} ml="xs">
              {check.subject}
            </Text>
          )}
        </Text>
        <Badge color={COLOR[check.status]}>{t(`status.${check.status}`)}</Badge>
      </Group>
      <Text size="sm" mt={4}>
        {check.detail}
      </Text>
      {check.fix && (
        <Text size="sm" c="dimmed" mt={4}>
          {t('fix')}: {check.fix}
        </Text>
      )}
    </Card>
  );
}
