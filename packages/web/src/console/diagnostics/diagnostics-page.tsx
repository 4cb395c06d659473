import { useState } from 'react';
import { Badge, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { endpoints, type DiagnosticCheck } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { registerMessages } from '../../i18n/i18n.js';
import { QueryState } from '../../shell/query-state.js';
import { diagnosticsMessages } from './diagnostics-messages.js';

registerMessages('diagnostics', diagnosticsMessages);

const COLOR = { ok: 'green', problem: 'red', skipped: 'gray' } as const;

/** The doctor's node-record checks (permission `node`), as `svc doctor` prints them (docs/reverse-proxy.md). */
export default function DiagnosticsPage() {
  const { t } = useTranslation('diagnostics');
  const [draft, setDraft] = useState('');
  const [playbackUrl, setPlaybackUrl] = useState<string | undefined>(undefined);
  const query = useEndpointQuery(endpoints.diagnostics.getDiagnostics, {
    query: playbackUrl === undefined ? {} : { playbackUrl },
  });
  return (
    <Stack gap="md" data-testid="diagnostics-page">
      <Title order={1} size="h3">
        {t('title')}
      </Title>
      <Text size="sm" c="dimmed">
        {t('intro')}
      </Text>
      <Group align="flex-end" gap="xs">
        <TextInput
          label={t('playbackUrl')}
          description={t('playbackUrlHint')}
          placeholder="https://play.example.com"
          value={draft}
          onChange={(event) => setDraft(event.currentTarget.value)}
          style={{ flex: 1, maxWidth: 420 }}
          data-testid="diagnostics-playback-url"
        />
        <Button
          onClick={() => {
            const wanted = draft.trim() === '' ? undefined : draft.trim();
            if (wanted === playbackUrl) void query.refetch();
            else setPlaybackUrl(wanted);
          }}
          loading={query.isFetching}
          data-testid="diagnostics-run"
        >
          {t('run')}
        </Button>
      </Group>
      <QueryState query={query} skeletonRows={4}>
        {(answer) => (
          <Stack gap="xs">
            {answer.checks.map((check) => (
              <CheckCard key={check.id} check={check} />
            ))}
          </Stack>
        )}
      </QueryState>
    </Stack>
  );
}

function CheckCard({ check }: { check: DiagnosticCheck }) {
  const { t } = useTranslation('diagnostics');
  return (
    <Card withBorder padding="sm" data-testid={`diagnostics-check-${check.id}`} data-status={check.status}>
      <Group justify="space-between" wrap="nowrap">
        <Text fw={600}>{t(`check.${check.id}`, { defaultValue: check.title })}</Text>
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
