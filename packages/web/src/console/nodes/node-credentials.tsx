import { useState } from 'react';
import { Alert, Button, Card, Code, Group, Modal, Stack, Switch, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconEye, IconEyeOff, IconRefresh } from '@tabler/icons-react';
import { endpoints, type NodeCredentials, type NodeView } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../shell/error-alert.js';
import { CopyIconButton } from './copy-icon-button.js';
import { commandLines, installKindsFor } from './install-commands.js';
import { isEmbedded, isManualAddress } from './node-status.js';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';

type TokenName = keyof NodeView['tokens'];
const TOKEN_NAMES: TokenName[] = ['nodeToken', 'registryToken', 'endpointToken'];

/**
 * Install commands and tokens of a node: masked until "show full command" fetches the credentials
 * (kept in this component only, never in the query cache), with copy buttons once revealed. Manual
 * addresses regenerate their endpoint token here.
 */
export function NodeCredentials({
  node,
  initialCredentials = null,
}: {
  node: NodeView;
  /** The creation answer: the secrets are known already, no fetch needed. */
  initialCredentials?: NodeCredentials | null;
}) {
  const { t } = useTranslation('nodes');
  const [credentials, setCredentials] = useState<NodeCredentials | null>(initialCredentials);
  const [revealed, setRevealed] = useState(false);
  const [ffmpeg, setFfmpeg] = useState(false);
  const [confirmRegenerate, setConfirmRegenerate] = useState(false);

  const fetchCredentials = useEndpointMutation((call, nodeId: string) =>
    call(endpoints.config.getNodeCredentials, { params: { nodeId } }),
  );
  const regenerate = useEndpointMutation(
    (call, nodeId: string) => call(endpoints.config.regenerateEndpointToken, { params: { nodeId } }),
    [endpoints.config.listNodes],
  );

  const reveal = () => {
    if (credentials) {
      setRevealed(true);
      return;
    }
    fetchCredentials.mutate(node.nodeId, {
      onSuccess: (answer) => {
        setCredentials(answer);
        setRevealed(true);
      },
    });
  };

  const runRegenerate = () => {
    regenerate.mutate(node.nodeId, {
      onSuccess: (answer) => {
        setCredentials((previous) => ({
          nodeId: node.nodeId,
          serviceType: node.serviceType,
          scope: node.scope,
          nodeToken: previous?.nodeToken ?? null,
          registryToken: previous?.registryToken ?? null,
          configUrl: previous?.configUrl ?? null,
          installCommands: previous?.installCommands ?? [],
          endpointToken: answer.endpointToken,
        }));
        setRevealed(true);
        setConfirmRegenerate(false);
        notifications.show({ color: 'green', message: t('regenerate.done') });
      },
    });
  };

  const lines = commandLines({ node, credentials, revealed, ffmpeg });
  const tokens = TOKEN_NAMES.filter((name) => node.tokens[name] !== null);
  const hasCommands = installKindsFor(node).length > 0;
  const playAgent = node.serviceType === 'svc-play-agent' && hasCommands;

  return (
    <Card withBorder padding="md" data-testid="node-credentials">
      <Group justify="space-between" mb="sm" gap="xs">
        <Title order={2} size="h4">
          {hasCommands ? t('credentials.commandsTitle') : t('credentials.tokensTitle')}
        </Title>
        <Group gap="xs">
          {playAgent && (
            <Switch
              label={t('credentials.ffmpeg')}
              description={t('credentials.ffmpegHelp')}
              checked={ffmpeg}
              onChange={(event) => setFfmpeg(event.currentTarget.checked)}
              data-testid="node-ffmpeg-switch"
            />
          )}
          {revealed ? (
            <Button
              variant="default"
              size="xs"
              leftSection={<IconEyeOff size={16} />}
              onClick={() => setRevealed(false)}
              data-testid="node-hide-button"
            >
              {t('credentials.hide')}
            </Button>
          ) : (
            <Button
              variant="light"
              size="xs"
              leftSection={<IconEye size={16} />}
              onClick={reveal}
              loading={fetchCredentials.isPending}
              data-testid="node-reveal-button"
            >
              {t('credentials.showFull')}
            </Button>
          )}
        </Group>
      </Group>
      <Stack gap="sm">
        {fetchCredentials.isError && <ErrorAlert error={fetchCredentials.error} />}
        {!revealed && (
          <Text size="sm" c="dimmed">
            {t('credentials.maskedHint')}
          </Text>
        )}
        {!isManualAddress(node) && lines.length === 0 && (
          <Text size="sm" c="dimmed">
            {isEmbedded(node) ? t('credentials.embeddedNoCommands') : t('common:noData')}
          </Text>
        )}
        {lines.map((line) => (
          <div key={`${line.kind}-${String(line.ffmpeg)}`} data-testid={`install-command-${line.kind}`}>
            <Text size="sm" fw={500} mb={4}>
              {t(`credentials.kind.${line.kind}`)}
            </Text>
            <Group gap="xs" wrap="nowrap" align="flex-start">
              <Code
                block
                style={{ flex: 1, minWidth: 0, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
                data-revealed={line.copyValue !== null || undefined}
              >
                {line.display}
              </Code>
              <CopyIconButton
                value={line.copyValue}
                label={t('credentials.copyCommand', { kind: t(`credentials.kind.${line.kind}`) })}
                disabledHint={t('credentials.copyAfterReveal')}
                testId={`copy-command-${line.kind}`}
              />
            </Group>
          </div>
        ))}
        {revealed && credentials?.configUrl && lines.length > 0 && (
          <Text size="xs" c="dimmed">
            {t('credentials.configUrl', { url: credentials.configUrl })}
          </Text>
        )}
        {tokens.length > 0 && hasCommands && (
          <Title order={3} size="h5" mt="xs">
            {t('credentials.tokensTitle')}
          </Title>
        )}
        {tokens.map((name) => {
          const full = revealed ? (credentials?.[name] ?? null) : null;
          return (
            <div key={name} data-testid={`node-token-${name}`}>
              <Text size="sm" fw={500} mb={4}>
                {t(`credentials.token.${name}`)}
              </Text>
              <Group gap="xs" wrap="nowrap">
                <Code
                  style={{ flex: 1, minWidth: 0, wordBreak: 'break-all' }}
                  data-revealed={full !== null || undefined}
                >
                  {full ?? node.tokens[name]}
                </Code>
                <CopyIconButton
                  value={full}
                  label={t('credentials.copyToken', { token: t(`credentials.token.${name}`) })}
                  disabledHint={t('credentials.copyAfterReveal')}
                  testId={`copy-token-${name}`}
                />
              </Group>
            </div>
          );
        })}
        {isManualAddress(node) && (
          <Group>
            <Button
              variant="light"
              color="orange"
              size="xs"
              leftSection={<IconRefresh size={16} />}
              onClick={() => setConfirmRegenerate(true)}
              data-testid="regenerate-token-button"
            >
              {t('regenerate.button')}
            </Button>
          </Group>
        )}
      </Stack>
      <Modal
        opened={confirmRegenerate}
        onClose={() => setConfirmRegenerate(false)}
        title={t('regenerate.title')}
        data-testid="regenerate-token-modal"
      >
        <Stack>
          <Alert color="orange" icon={<IconAlertTriangle size={18} />}>
            {t('regenerate.warning')}
          </Alert>
          {regenerate.isError && <ErrorAlert error={regenerate.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirmRegenerate(false)}>
              {t('common:cancel')}
            </Button>
            <Button
              color="orange"
              onClick={runRegenerate}
              loading={regenerate.isPending}
              data-testid="regenerate-token-confirm"
            >
              {t('regenerate.confirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Card>
  );
}
