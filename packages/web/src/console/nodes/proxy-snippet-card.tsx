import { useState } from 'react';
import { Button, Card, Code, Group, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { IconFileCode } from '@tabler/icons-react';
import { endpoints, type NodeView } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { CopyIconButton } from './copy-icon-button.js';

type ProxyServer = 'nginx' | 'caddy';

/**
 * The console and playback proxy sites of a manual address, from the server's generator
 * (docs/reverse-proxy.md). They carry the endpoint token in full, so they are fetched on demand, kept in
 * this component only and recorded in the audit log like "show full command".
 */
export function ProxySnippetCard({ node }: { node: NodeView }) {
  const { t } = useTranslation('nodes');
  const [server, setServer] = useState<ProxyServer>('nginx');
  const [text, setText] = useState<string | null>(null);
  const fetchSnippet = useEndpointMutation((call, wanted: ProxyServer) =>
    call(endpoints.diagnostics.getProxySnippet, {
      params: { nodeId: node.nodeId },
      // The console's own domain: the one this page is reached with.
      query: { server: wanted, consoleName: window.location.hostname },
    }),
  );
  const load = (wanted: ProxyServer) =>
    fetchSnippet.mutate(wanted, { onSuccess: (answer) => setText(answer.text) });

  return (
    <Card withBorder padding="md" data-testid="node-proxy-snippet">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4">
          {t('proxySnippet.title')}
        </Title>
        <Group gap="xs">
          <SegmentedControl
            size="xs"
            value={server}
            data={[
              { value: 'nginx', label: 'nginx' },
              { value: 'caddy', label: 'Caddy' },
            ]}
            onChange={(value) => {
              setServer(value);
              if (text !== null) load(value);
            }}
          />
          <Button
            size="xs"
            variant="light"
            leftSection={<IconFileCode size={16} />}
            loading={fetchSnippet.isPending}
            onClick={() => load(server)}
            data-testid="node-proxy-snippet-button"
          >
            {t('proxySnippet.show')}
          </Button>
        </Group>
      </Group>
      <Stack gap="xs">
        <Text size="xs" c="dimmed">
          {t('proxySnippet.hint')}
        </Text>
        {fetchSnippet.isError && <ErrorAlert error={fetchSnippet.error} />}
        {text !== null && (
          <Group align="flex-start" wrap="nowrap" gap="xs">
            <Code
              block
              style={{ flex: 1, maxHeight: 360, overflow: 'auto' }}
              data-testid="node-proxy-snippet-text"
            >
              {text}
            </Code>
            <CopyIconButton
              value={text}
              label={t('proxySnippet.copy')}
              disabledHint={t('proxySnippet.show')}
              testId="node-proxy-snippet-copy"
            />
          </Group>
        )}
      </Stack>
    </Card>
  );
}
