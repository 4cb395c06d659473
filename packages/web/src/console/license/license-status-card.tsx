import type { ReactNode } from 'react';
import {
  ActionIcon,
  Alert,
  Badge,
  Card,
  Code,
  CopyButton,
  Group,
  Progress,
  SimpleGrid,
  Stack,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import type { LicenseStatusResponse, ListNodesResponse } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../i18n/format.js';
import { licenseStateColor, reasonKey, slotPercent, validityNote } from './license-status.js';

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" component="div" style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </div>
  );
}

/** The licence's state, validity, quotas (with the slots in use when known) and this install's id. */
export function LicenseStatusCard({
  status,
  slotsUsed,
}: {
  status: LicenseStatusResponse;
  slotsUsed: ListNodesResponse['slotsUsed'] | undefined;
}) {
  const { t } = useTranslation('license');
  const note = validityNote(status, new Date());
  const reason = reasonKey(status.reason);
  const showQuotas = status.status === 'ACTIVE' || status.status === 'GRACE' || status.status === 'EXPIRED';
  return (
    <Card withBorder padding="md" data-testid="license-status-card">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4">
          {t('status.title')}
        </Title>
        <Badge
          color={licenseStateColor(status.status)}
          variant="light"
          size="lg"
          data-testid="license-status"
          data-status={status.status}
        >
          {t(`status.state.${status.status}`)}
        </Badge>
      </Group>
      <Stack gap="sm">
        {!status.publicKeyConfigured && (
          <Alert color="yellow" data-testid="license-no-key">
            {t('status.noPublicKey')}
          </Alert>
        )}
        <Text size="sm" c={status.status === 'ACTIVE' ? 'dimmed' : undefined}>
          {t(`status.help.${status.status}`)}
          {status.status === 'INVALID' && status.reason && ` ${reason ? t(reason) : status.reason}`}
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm">
          <Field label={t('status.edition')}>
            <span data-testid="license-edition">{t(`editions.${status.edition}`)}</span>
          </Field>
          <Field label={t('status.licenseId')}>
            {status.licenseId ? <Code>{status.licenseId}</Code> : '—'}
          </Field>
          <Field label={t('status.validFrom')}>{formatDateTime(status.validFrom)}</Field>
          <Field label={t('status.validUntil')}>
            {formatDateTime(status.validUntil)}
            {note?.key === 'validity.activeDays' && (
              <Text span size="xs" c="dimmed">
                {' · '}
                {t(note.key, { days: note.days })}
              </Text>
            )}
          </Field>
          <Field label={t('status.graceUntil')}>
            {formatDateTime(status.graceUntil)}
            {note?.key === 'validity.graceDays' && (
              <Text span size="xs" c="orange">
                {' · '}
                {t(note.key, { days: note.days })}
              </Text>
            )}
          </Field>
          <Field label={t('status.issuedAt')}>{formatDateTime(status.issuedAt)}</Field>
          <Field label={t('status.activatedAt')}>{formatDateTime(status.activatedAt)}</Field>
          <Field label={t('status.installId')}>
            <Group gap={4} wrap="nowrap">
              <Code data-testid="license-install-id">{status.installId}</Code>
              <CopyButton value={status.installId} timeout={1500}>
                {({ copied, copy }) => (
                  <Tooltip label={copied ? t('common:copied') : t('status.copyInstallId')}>
                    <ActionIcon
                      variant="subtle"
                      color={copied ? 'teal' : 'gray'}
                      aria-label={t('status.copyInstallId')}
                      onClick={copy}
                      data-testid="copy-install-id"
                    >
                      {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
                    </ActionIcon>
                  </Tooltip>
                )}
              </CopyButton>
            </Group>
            <Text size="xs" c="dimmed">
              {t('status.installIdHelp')}
            </Text>
          </Field>
        </SimpleGrid>
        {showQuotas && (
          <>
            <Title order={3} size="h5">
              {t('status.quotas')}
            </Title>
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              <Quota
                label={t('status.storage')}
                max={status.maxStorageNodes}
                used={slotsUsed?.storage}
                testId="license-quota-storage"
              />
              <Quota
                label={t('status.playAgent')}
                max={status.maxPlayAgentNodes}
                used={slotsUsed?.playAgent}
                testId="license-quota-play-agent"
              />
            </SimpleGrid>
          </>
        )}
      </Stack>
    </Card>
  );
}

function Quota({
  label,
  max,
  used,
  testId,
}: {
  label: string;
  max: number;
  used: number | undefined;
  testId: string;
}) {
  const { t } = useTranslation('license');
  const full = used !== undefined && used >= max;
  return (
    <div data-testid={testId}>
      <Group justify="space-between" gap="xs">
        <Text size="sm">{label}</Text>
        <Text size="sm" c="dimmed">
          {used === undefined ? t('status.slotsMax', { max }) : t('status.slotsUsed', { used, max })}
        </Text>
      </Group>
      {used !== undefined && (
        <Progress
          value={slotPercent(used, max)}
          color={full ? 'orange' : 'blue'}
          size="sm"
          mt={4}
          aria-label={label}
        />
      )}
    </div>
  );
}
