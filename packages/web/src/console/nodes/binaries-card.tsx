import type { ReactNode } from 'react';
import { Alert, Badge, Card, Code, Group, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatBytes, formatDateTime } from '../../i18n/format.js';
import { QueryState } from '../../shell/query-state.js';
import { shortDigest, versionMismatch, type BinaryStatus } from './binaries-status.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { endpoints } from '@svc/contracts';
import { NodeImageSettingsForm } from './node-image-form.js';

/** Whether the config service can hand out the node binary, and which images the docker commands use. */
export function BinariesCard() {
  const { t } = useTranslation('nodes');
  const query = useEndpointQuery(endpoints.config.getBinaryStatus, {});
  return (
    <Card withBorder padding="md" data-testid="node-binaries-card">
      <Title order={2} size="h4" mb="xs">
        {t('binaries.title')}
      </Title>
      <QueryState query={query} skeletonRows={4}>
        {(status) => <BinariesBody status={status} />}
      </QueryState>
      <NodeImageSettingsForm />
    </Card>
  );
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Group justify="space-between" gap="xs" wrap="nowrap" align="flex-start">
      <Text size="sm" c="dimmed" style={{ flexShrink: 0 }}>
        {label}
      </Text>
      <Text size="sm" ta="right" style={{ minWidth: 0, wordBreak: 'break-all' }}>
        {children}
      </Text>
    </Group>
  );
}

function BinariesBody({ status }: { status: BinaryStatus }) {
  const { t } = useTranslation('nodes');
  return (
    <Stack gap={6}>
      <Group gap="xs" wrap="nowrap">
        <Badge color={status.provided ? 'green' : 'orange'} variant="light" data-testid="node-binary-state">
          {status.provided ? t('binaries.provided') : t('binaries.missing')}
        </Badge>
        <Code style={{ minWidth: 0, overflowWrap: 'anywhere' }}>{status.file}</Code>
      </Group>
      <Text size="xs" c="dimmed">
        {status.provided ? t('binaries.providedHint') : t('binaries.missingHint')}
      </Text>
      {versionMismatch(status) && (
        <Alert color="yellow" p="xs">
          {t('binaries.versionMismatch', { version: status.version, control: status.controlVersion })}
        </Alert>
      )}
      {status.provided && (
        <>
          <Row label={t('binaries.version')}>{status.version ?? '—'}</Row>
          <Row label={t('binaries.size')}>{formatBytes(status.sizeBytes)}</Row>
          <Row label="SHA-256">{shortDigest(status.sha256) ?? '—'}</Row>
          <Row label={t('binaries.modifiedAt')}>{formatDateTime(status.modifiedAt)}</Row>
        </>
      )}
      <Row label={t('binaries.controlVersion')}>{status.controlVersion}</Row>
      <Row label={t('binaries.dockerImage')}>{status.dockerImage}</Row>
      {status.dockerImageFfmpeg !== status.dockerImage && (
        <Row label={t('binaries.dockerImageFfmpeg')}>{status.dockerImageFfmpeg}</Row>
      )}
    </Stack>
  );
}
