import { Alert, Button, Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/client.js';

/** The user's-language text of an error: by the API's code, else the server's own message. */
export function useErrorText() {
  const { t, i18n } = useTranslation('errors');
  return (error: unknown): string => {
    if (error instanceof ApiError) {
      return i18n.exists(error.code, { ns: 'errors' }) ? t(error.code) : error.message;
    }
    return error instanceof Error ? error.message : String(error);
  };
}

/** Field problems a VALIDATION_FAILED answer lists, as "path: message". */
function validationLines(error: unknown): string[] {
  if (!(error instanceof ApiError) || !Array.isArray(error.details)) return [];
  return (error.details as { path?: unknown; message?: unknown }[])
    .filter((issue) => typeof issue?.message === 'string')
    .map((issue) => {
      const path = Array.isArray(issue.path)
        ? issue.path.join('.')
        : typeof issue.path === 'string'
          ? issue.path
          : '';
      return path ? `${path}: ${String(issue.message)}` : String(issue.message);
    });
}

export function ErrorAlert({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const text = useErrorText();
  const { t } = useTranslation();
  const lines = validationLines(error);
  return (
    <Alert color="red" role="alert" data-testid="error-alert">
      <Text size="sm">{text(error)}</Text>
      {lines.map((line) => (
        <Text key={line} size="xs" c="dimmed">
          {line}
        </Text>
      ))}
      {onRetry && (
        <Group mt="xs">
          <Button size="xs" variant="light" color="red" onClick={onRetry}>
            {t('retry')}
          </Button>
        </Group>
      )}
    </Alert>
  );
}
