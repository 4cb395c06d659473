import { ActionIcon, Alert, Badge, Button, Group, Menu, Progress, Stack, Text } from '@mantine/core';
import { IconChevronDown, IconRefresh } from '@tabler/icons-react';
import type { ScanMode, ScanStatus } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { formatDateTime, formatNumber } from '../../i18n/format.js';
import { scanOutcome, scanPercent, type ScanOutcome } from './scan-progress.js';

const OUTCOME_COLORS: Record<ScanOutcome, string> = {
  active: 'blue',
  succeeded: 'green',
  problems: 'yellow',
  failed: 'red',
  cancelled: 'gray',
};

/** The counters of a scan in one line. */
function ScanCounts({ scan }: { scan: ScanStatus }) {
  const { t } = useTranslation('libraries');
  return (
    <Text size="xs" c="dimmed" data-testid="scan-progress-text">
      {t('scan.counts', {
        seen: formatNumber(scan.filesSeen),
        total: formatNumber(scan.filesTotal),
        added: formatNumber(scan.itemsAdded),
        updated: formatNumber(scan.itemsUpdated),
        removed: formatNumber(scan.itemsRemoved),
        skipped: formatNumber(scan.filesSkipped),
      })}
    </Text>
  );
}

/**
 * A scan as it runs (live progress bar, phase and counters) or its result (state, counters, when, and the
 * error it reported).
 */
export function ScanView({ scan, compact = false }: { scan: ScanStatus | null; compact?: boolean }) {
  const { t } = useTranslation('libraries');
  if (!scan) {
    return (
      <Text size="sm" c="dimmed">
        {t('scan.never')}
      </Text>
    );
  }
  const outcome = scanOutcome(scan);
  if (outcome === 'active') {
    const percent = scanPercent(scan);
    return (
      <Stack gap={4} miw={compact ? 180 : undefined}>
        <Group justify="space-between" gap="xs" wrap="nowrap">
          <Text size="sm">{t(`scan.phase.${scan.phase}`)}</Text>
          {percent !== null && (
            <Text size="xs" c="dimmed">
              {Math.floor(percent)} %
            </Text>
          )}
        </Group>
        <Progress
          value={percent ?? 100}
          striped
          animated
          aria-label={t('scan.progress')}
          data-testid="scan-progress"
          data-value={percent === null ? '' : Math.round(percent)}
        />
        <ScanCounts scan={scan} />
      </Stack>
    );
  }
  return (
    <Stack gap={4} data-testid="scan-result" data-outcome={outcome}>
      <Group gap="xs" wrap="wrap">
        <Badge color={OUTCOME_COLORS[outcome]} variant="light">
          {t(`scan.outcome.${outcome}`)}
        </Badge>
        <Text size="xs" c="dimmed">
          {formatDateTime(scan.finishedAt ?? scan.createdAt)}
        </Text>
      </Group>
      <ScanCounts scan={scan} />
      {scan.error &&
        (compact ? (
          <Text
            size="xs"
            c={outcome === 'problems' ? 'yellow' : 'red'}
            lineClamp={2}
            data-testid="scan-error"
          >
            {scan.error}
          </Text>
        ) : (
          <Alert color={outcome === 'problems' ? 'yellow' : 'red'} data-testid="scan-error">
            <Text size="sm">{scan.error}</Text>
          </Alert>
        ))}
      {!compact &&
        scan.probeTools
          .filter((tool) => !tool.available)
          .map((tool) => (
            <Text key={tool.nodeId} size="xs" c="yellow">
              {t(tool.reachable ? 'scan.noProbe' : 'scan.nodeUnreachable', { node: tool.nodeId })}
            </Text>
          ))}
    </Stack>
  );
}

/** "Scan" (incremental), with a menu for a full scan. */
export function ScanButton({
  onStart,
  loading,
  disabled,
  libraryName,
}: {
  onStart: (mode: ScanMode) => void;
  loading: boolean;
  disabled: boolean;
  libraryName: string;
}) {
  const { t } = useTranslation('libraries');
  return (
    <Group gap={0} wrap="nowrap">
      <Button
        size="xs"
        variant="light"
        leftSection={<IconRefresh size={14} />}
        onClick={() => onStart('incremental')}
        loading={loading}
        disabled={disabled}
        aria-label={t('scan.startNamed', { name: libraryName })}
        style={{ borderTopRightRadius: 0, borderBottomRightRadius: 0 }}
        data-testid="library-scan"
      >
        {t('scan.start')}
      </Button>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <ActionIcon
            variant="light"
            size={30}
            disabled={disabled || loading}
            aria-label={t('scan.modes', { name: libraryName })}
            style={{ borderTopLeftRadius: 0, borderBottomLeftRadius: 0 }}
            data-testid="library-scan-modes"
          >
            <IconChevronDown size={14} />
          </ActionIcon>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item onClick={() => onStart('incremental')} data-testid="scan-incremental">
            {t('scan.incremental')}
          </Menu.Item>
          <Menu.Item onClick={() => onStart('full')} data-testid="scan-full">
            {t('scan.full')}
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
    </Group>
  );
}
