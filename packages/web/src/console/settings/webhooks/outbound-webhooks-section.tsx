import { useCallback, useEffect, useRef, useState } from 'react';
import { Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { endpoints, type OutboundWebhook } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation, useEndpointQuery } from '../../../api/endpoint-hooks.js';
import { registerMessages } from '../../../i18n/i18n.js';
import { QueryState } from '../../../shell/query-state.js';
import { DeliveriesCard } from './deliveries-card.js';
import { EndpointEditor } from './endpoint-editor.js';
import { EndpointTestResult, type TestOutcome } from './endpoint-test-result.js';
import { EndpointsTable } from './endpoints-table.js';
import { webhooksMessages } from './webhooks-messages.js';

registerMessages('webhooks', webhooksMessages);

/** Which endpoint the editor has open: a new one, or a saved one. */
type Editing = { endpoint: OutboundWebhook | undefined } | null;

/**
 * The outbound webhooks of the System configuration page: the endpoints (editor with variable picker, test
 * sends, delete) and the latest deliveries. `onDirtyChange(true)` while the editor holds unsaved edits.
 */
export function OutboundWebhooksSection({ onDirtyChange }: { onDirtyChange: (dirty: boolean) => void }) {
  const { t } = useTranslation('webhooks');
  const list = useEndpointQuery(endpoints.media.listOutboundWebhooks, {});
  const libraries = useEndpointQuery(endpoints.media.listOutboundWebhookLibraries, {});
  const [editing, setEditing] = useState<Editing>(null);
  const [testOutcome, setTestOutcome] = useState<TestOutcome | null>(null);
  const test = useEndpointMutation(
    (call, endpoint: OutboundWebhook) =>
      call(endpoints.media.testOutboundWebhook, { params: { id: endpoint.id } }),
    [endpoints.media.listOutboundWebhookDeliveries],
  );
  const runTest = (endpoint: OutboundWebhook) => {
    setTestOutcome(null);
    test.mutate(endpoint, {
      onSuccess: (result) => setTestOutcome({ endpointName: endpoint.name, result }),
      onError: (error) => setTestOutcome({ endpointName: endpoint.name, error }),
    });
  };
  const knownLibraries = libraries.data?.libraries ?? [];
  // The page may pass a new function on every render; the editor's effects need a stable one.
  const dirtyListener = useRef(onDirtyChange);
  useEffect(() => {
    dirtyListener.current = onDirtyChange;
  }, [onDirtyChange]);
  const reportDirty = useCallback((dirty: boolean) => dirtyListener.current(dirty), []);

  return (
    <Stack gap="md" data-testid="outbound-webhooks">
      <Paper withBorder p="md" radius="md" component="section" aria-labelledby="outbound-webhooks-title">
        <Stack gap="sm">
          <Group justify="space-between" align="flex-start">
            <div>
              <Title order={2} size="h4" id="outbound-webhooks-title">
                {t('section.title')}
              </Title>
              {list.data && (
                <Text size="sm" c="dimmed">
                  {t('section.intro', { count: list.data.retry.maxAttempts })}
                </Text>
              )}
            </div>
            <Button
              leftSection={<IconPlus size={16} />}
              disabled={!list.data}
              onClick={() => setEditing({ endpoint: undefined })}
              data-testid="webhook-create"
            >
              {t('list.create')}
            </Button>
          </Group>
          {testOutcome && <EndpointTestResult outcome={testOutcome} onClose={() => setTestOutcome(null)} />}
          <QueryState query={list} skeletonRows={3}>
            {(data) => (
              <EndpointsTable
                endpoints={data.endpoints}
                libraries={knownLibraries}
                testingId={test.isPending ? (test.variables?.id ?? null) : null}
                onEdit={(endpoint) => setEditing({ endpoint })}
                onTest={runTest}
              />
            )}
          </QueryState>
        </Stack>
      </Paper>
      {editing && list.data && (
        <EndpointEditor
          key={editing.endpoint?.id ?? 'new'}
          endpoint={editing.endpoint}
          defaults={list.data.defaultBodies}
          variables={list.data.variables}
          libraries={knownLibraries}
          onClose={() => setEditing(null)}
          onDirtyChange={reportDirty}
        />
      )}
      <DeliveriesCard />
    </Stack>
  );
}
