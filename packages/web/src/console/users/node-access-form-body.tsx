import type { ReactNode } from 'react';
import { Alert, MultiSelect, SimpleGrid, TagsInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { nodeAccessModeSchema, type RouteKind } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../shell/error-alert.js';
import { AccessModeRadios } from './access-mode-radios.js';
import type { RouteChoices } from './node-access-card.js';
import type { NodeAccessValues } from './node-access-form.js';
import { routeLabel, selectItems, unknownRoutesOf } from './route-options.js';

const MODES = nodeAccessModeSchema.options;

/**
 * The fields of a node access form (mode, then the lists of an ALLOW_LIST), the caller's notices, the save's
 * error and the routes it did not know; the caller wraps them in its form and stack and adds its own save
 * button.
 */
export function NodeAccessFormBody({
  form,
  routes,
  readOnly = false,
  saveError,
  modeMessages,
  markDisabled,
  notices,
}: {
  form: UseFormReturnType<NodeAccessValues>;
  routes: RouteChoices;
  readOnly?: boolean;
  /** The last save's error (null when none). */
  saveError: unknown;
  /** Key prefix of the mode question (`<prefix>.mode`) and of each mode's label and help (`<prefix>.modes.…`). */
  modeMessages: string;
  /** Labels a disabled node in the pick lists; without it they are listed like the others. */
  markDisabled?: (label: string) => string;
  /** Shown under the lists (hints on the chosen access). */
  notices?: ReactNode;
}) {
  const { t } = useTranslation('users');
  const unknown = unknownRoutesOf(saveError);
  const listed = form.values.mode === 'ALLOW_LIST';

  const listInput = (kind: RouteKind, field: 'nodes' | 'endpoints', label: string) => {
    const common = {
      label,
      disabled: readOnly,
      clearable: !readOnly,
      ...form.getInputProps(field),
      'data-testid': `node-access-${field}`,
    };
    if (!routes.known) return <TagsInput {...common} description={t('nodeAccess.typeHelp')} />;
    const disabled = new Set(routes.options.filter((option) => option.disabled).map((option) => option.id));
    const items = selectItems(routes.options, kind, form.values[field]).map((item) =>
      markDisabled && disabled.has(item.value) ? { ...item, label: markDisabled(item.label) } : item,
    );
    return (
      <MultiSelect
        {...common}
        data={items}
        placeholder={t('nodeAccess.pickPlaceholder')}
        searchable
        nothingFoundMessage={t('common:noData')}
      />
    );
  };

  return (
    <>
      <AccessModeRadios
        input={form.getInputProps('mode')}
        modes={MODES}
        messages={modeMessages}
        readOnly={readOnly}
        testId="node-access-mode"
      />
      {listed && (
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          {listInput('node', 'nodes', t('nodeAccess.nodes'))}
          {listInput('endpoint', 'endpoints', t('nodeAccess.endpoints'))}
        </SimpleGrid>
      )}
      {notices}
      {saveError ? <ErrorAlert error={saveError} form={form} /> : null}
      {unknown.length > 0 && (
        <Alert color="red" variant="outline" data-testid="node-access-unknown">
          {t('nodeAccess.unknown', {
            ids: unknown.map((route) => routeLabel(route, routes.options)).join(', '),
          })}
        </Alert>
      )}
    </>
  );
}
