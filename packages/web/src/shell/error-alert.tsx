import { useEffect, useEffectEvent, type ReactNode } from 'react';
import { Alert, Button, Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { explainError, fieldProblemLine, fieldProblems, type FieldProblem } from './error-explanation.js';

/** The error explained in the interface language (headline by the API's code, the server's own text). */
export function useErrorExplanation() {
  const { t, i18n } = useTranslation('errors');
  return (error: unknown) =>
    explainError(error, (code) => (i18n.exists(code, { ns: 'errors' }) ? t(code) : undefined));
}

/** An error as one line (notifications, table cells): headline — server's explanation or field problems. */
export function useErrorText() {
  const explain = useErrorExplanation();
  return (error: unknown): string => {
    const { headline, explanation, fields } = explain(error);
    const details = explanation ? [explanation] : fields.map(fieldProblemLine);
    return details.length > 0 ? `${headline} — ${details.join('; ')}` : headline;
  };
}

/** The part of a Mantine form an alert needs to put the server's field problems on the fields. */
export interface FieldErrorTarget {
  getValues(): unknown;
  setFieldError(path: string, error: ReactNode): void;
}

/** Whether the form has a field at the dotted path (an optional one left undefined does not count). */
function hasField(values: unknown, path: string): boolean {
  let value: unknown = values;
  for (const segment of path.split('.')) {
    if (typeof value !== 'object' || value === null || !(segment in value)) return false;
    value = (value as Record<string, unknown>)[segment];
  }
  return value !== undefined;
}

/**
 * A refusal: the code's headline in the interface language, the server's own explanation under it, and
 * the fields the answer names. Given the `form`, problems of its fields are shown on the fields and the
 * rest here.
 */
export function ErrorAlert({
  error,
  onRetry,
  form,
}: {
  error: unknown;
  onRetry?: () => void;
  form?: FieldErrorTarget;
}) {
  const { t } = useTranslation();
  const { headline, explanation, fields } = useErrorExplanation()(error);
  const values = form?.getValues();
  const onField = (problem: FieldProblem) => problem.field !== '' && hasField(values, problem.field);
  const showOnFields = useEffectEvent((shown: unknown) => {
    if (!form) return;
    for (const problem of fieldProblems(shown)) {
      if (onField(problem)) form.setFieldError(problem.field, problem.message);
    }
  });
  // Only when another error arrives: the person's edits clear a field's error.
  useEffect(() => showOnFields(error), [error]);
  return (
    <Alert color="red" role="alert" data-testid="error-alert">
      <Text size="sm" fw={500}>
        {headline}
      </Text>
      {explanation && (
        <Text size="sm" lang="en" data-testid="error-explanation">
          {explanation}
        </Text>
      )}
      {fields
        .filter((problem) => !onField(problem))
        .map((problem) => (
          <Text key={fieldProblemLine(problem)} size="xs" c="dimmed" lang="en">
            {fieldProblemLine(problem)}
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
