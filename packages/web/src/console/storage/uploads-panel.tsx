import { ActionIcon, Button, Group, Paper, Progress, Stack, Text, Title, Tooltip } from '@mantine/core';
import { IconRefresh, IconReplace, IconX } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client.js';
import { formatBytes } from '../../i18n/format.js';
import { useErrorText } from '../../shell/error-alert.js';
import { uploadPercent } from './upload-plan.js';
import { ACTIVE_UPLOAD, useUploads, type UploadJob, type UploadStatus } from './uploads-context.js';

const STATUS_COLORS: Record<UploadStatus, string> = {
  queued: 'gray',
  hashing: 'blue',
  sending: 'blue',
  completing: 'blue',
  done: 'green',
  failed: 'red',
  cancelled: 'yellow',
};

function UploadRow({ job }: { job: UploadJob }) {
  const { t } = useTranslation('storage');
  const errorText = useErrorText();
  const uploads = useUploads();
  const percent = uploadPercent(job.sent, job.size);
  const active = job.status === 'queued' || ACTIVE_UPLOAD.includes(job.status);
  const exists = job.error instanceof ApiError && job.error.code === 'ALREADY_EXISTS';
  return (
    <Stack gap={4} data-testid="upload-row" data-status={job.status} data-path={job.path}>
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text size="sm" truncate="end" style={{ flex: 1, minWidth: 0 }} title={job.path}>
          {job.name}
        </Text>
        <Group gap={4} wrap="nowrap">
          <Text size="xs" c="dimmed" data-testid="upload-status">
            {t(`uploads.status.${job.status}`)}
          </Text>
          {exists && (
            <Tooltip label={t('uploads.replace')}>
              <ActionIcon
                variant="subtle"
                size="sm"
                aria-label={t('uploads.replaceNamed', { name: job.name })}
                onClick={() => uploads.retry(job.id, true)}
                data-testid="upload-replace"
              >
                <IconReplace size={16} />
              </ActionIcon>
            </Tooltip>
          )}
          {(job.status === 'failed' || job.status === 'cancelled') && !exists && (
            <Tooltip label={t('uploads.retry')}>
              <ActionIcon
                variant="subtle"
                size="sm"
                aria-label={t('uploads.retryNamed', { name: job.name })}
                onClick={() => uploads.retry(job.id)}
                data-testid="upload-retry"
              >
                <IconRefresh size={16} />
              </ActionIcon>
            </Tooltip>
          )}
          {(active || job.status === 'failed') && (
            <Tooltip label={t('uploads.cancel')}>
              <ActionIcon
                variant="subtle"
                color="red"
                size="sm"
                aria-label={t('uploads.cancelNamed', { name: job.name })}
                onClick={() => uploads.cancel(job.id)}
                data-testid="upload-cancel"
              >
                <IconX size={16} />
              </ActionIcon>
            </Tooltip>
          )}
        </Group>
      </Group>
      <Progress
        value={job.status === 'hashing' ? 100 : percent}
        color={STATUS_COLORS[job.status]}
        striped={job.status === 'hashing' || job.status === 'completing'}
        animated={job.status === 'hashing' || job.status === 'completing'}
        aria-label={t('uploads.progressOf', { name: job.name })}
        data-testid="upload-progress"
        data-value={Math.round(percent)}
      />
      <Text size="xs" c="dimmed">
        {t('uploads.bytes', {
          sent: formatBytes(job.sent),
          size: formatBytes(job.size),
          percent: Math.floor(percent),
        })}
      </Text>
      {job.status === 'failed' && job.error !== undefined && (
        <Text size="xs" c="red" data-testid="upload-error">
          {errorText(job.error)}
        </Text>
      )}
    </Stack>
  );
}

/** The uploads into one mount (or all), with progress, cancel, retry and "replace" for a taken name. */
export function UploadsPanel({ mountId }: { mountId?: string }) {
  const { t } = useTranslation('storage');
  const uploads = useUploads();
  const jobs = uploads.jobs.filter((job) => !mountId || job.mountId === mountId);
  if (jobs.length === 0) return null;
  const finished = jobs.some((job) => job.status === 'done' || job.status === 'cancelled');
  return (
    <Paper withBorder p="sm" data-testid="upload-list">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h5">
          {t('uploads.title')}
        </Title>
        {finished && (
          <Button
            variant="subtle"
            size="xs"
            onClick={() => uploads.clearFinished()}
            data-testid="upload-clear"
          >
            {t('uploads.clear')}
          </Button>
        )}
      </Group>
      <Stack gap="sm">
        {jobs.map((job) => (
          <UploadRow key={job.id} job={job} />
        ))}
      </Stack>
    </Paper>
  );
}
