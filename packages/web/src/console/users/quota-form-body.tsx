import {
  ActionIcon,
  Button,
  Divider,
  Group,
  NumberInput,
  Paper,
  Select,
  SimpleGrid,
  Switch,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { randomId } from '@mantine/hooks';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import type { RouteKind } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { zodValidate } from '../../forms/zod-form.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import type { RouteChoices } from './node-access-card.js';
import {
  emptyAmountPaths,
  newRouteQuota,
  quotaFormErrors,
  toQuotasBody,
  type QuotasValues,
} from './quota-form.js';
import { parseRouteValue, routeLabel, routeValue, selectItems, unknownRoutesOf } from './route-options.js';

const UNITS = ['MB', 'GB'];
const PERIODS = ['day', 'week', 'month'] as const;
const KINDS: RouteKind[] = ['node', 'endpoint'];

type QuotasForm = UseFormReturnType<QuotasValues>;

/** A quotas form's checks: the request schema's, plus `requiredText` on every amount left empty. */
export function quotaFormValidate(schema: z.ZodType<unknown>, requiredText: string) {
  const validate = zodValidate(schema, toQuotasBody);
  return (values: QuotasValues) => ({
    ...quotaFormErrors(validate(values)),
    ...Object.fromEntries(emptyAmountPaths(values).map((path) => [path, requiredText])),
  });
}

/**
 * The fields of a quotas form (total quota, then the quotas of single routes), the save's error and the
 * routes it did not know; the caller wraps them in its form and stack and adds its own save button.
 */
export function QuotaFormBody({
  form,
  routes,
  readOnly = false,
  saveError,
}: {
  form: QuotasForm;
  routes: RouteChoices;
  readOnly?: boolean;
  /** The last save's error (null when none). */
  saveError: unknown;
}) {
  const { t } = useTranslation('users');
  const unknown = unknownRoutesOf(saveError);
  return (
    <>
      <Switch
        label={t('quotas.limitTotal')}
        description={t('quotas.limitTotalHelp')}
        disabled={readOnly}
        {...form.getInputProps('limitTotal', { type: 'checkbox' })}
        data-testid="quota-total-limit"
      />
      {form.values.limitTotal && (
        <QuotaFields form={form} path="total" readOnly={readOnly} testPrefix="quota-total" />
      )}
      <Text size="xs" c="dimmed">
        {t('quotas.periodsHint')}
      </Text>
      <Divider />
      <div>
        <Title order={3} size="h5">
          {t('quotas.routesTitle')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('quotas.routesHint')}
        </Text>
      </div>
      {form.values.routes.length === 0 && (
        <Text size="sm" c="dimmed" data-testid="quota-routes-empty">
          {t('quotas.noRouteQuotas')}
        </Text>
      )}
      {form.values.routes.map((row, index) => (
        <Paper key={row.key} withBorder p="sm" radius="md" data-testid="quota-route-row">
          <Stack gap="sm">
            <Group align="flex-end" gap="sm" wrap="nowrap">
              <RoutePicker form={form} index={index} routes={routes} readOnly={readOnly} />
              {!readOnly && (
                <ActionIcon
                  variant="subtle"
                  color="red"
                  size="lg"
                  aria-label={t('quotas.removeRoute', { index: index + 1 })}
                  onClick={() => form.removeListItem('routes', index)}
                  data-testid="quota-route-remove"
                >
                  <IconTrash size={18} />
                </ActionIcon>
              )}
            </Group>
            <QuotaFields form={form} path={`routes.${index}`} readOnly={readOnly} testPrefix="quota-route" />
          </Stack>
        </Paper>
      ))}
      {!readOnly && (
        <Group>
          <Button
            variant="light"
            leftSection={<IconPlus size={16} />}
            onClick={() => form.insertListItem('routes', newRouteQuota(randomId()))}
            data-testid="quota-route-add"
          >
            {t('quotas.addRoute')}
          </Button>
        </Group>
      )}
      {saveError ? <ErrorAlert error={saveError} form={form} /> : null}
      {unknown.length > 0 && (
        <Text size="sm" c="red" data-testid="quota-unknown-routes">
          {t('nodeAccess.unknown', {
            ids: unknown.map((route) => routeLabel(route, routes.options)).join(', '),
          })}
        </Text>
      )}
    </>
  );
}

/** Enforced switch, amount, unit and period of one quota (`path`: `total` or `routes.N`). */
function QuotaFields({
  form,
  path,
  readOnly,
  testPrefix,
}: {
  form: QuotasForm;
  path: string;
  readOnly: boolean;
  testPrefix: string;
}) {
  const { t } = useTranslation('users');
  return (
    <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="sm" verticalSpacing="sm">
      <Switch
        label={t('quotas.enforced')}
        description={t('quotas.enforcedHelp')}
        disabled={readOnly}
        {...form.getInputProps(`${path}.enabled`, { type: 'checkbox' })}
        data-testid={`${testPrefix}-enabled`}
      />
      <NumberInput
        label={t('quotas.amount')}
        min={0}
        max={1e9}
        decimalScale={3}
        allowNegative={false}
        readOnly={readOnly}
        required
        {...form.getInputProps(`${path}.amount`)}
        data-testid={`${testPrefix}-amount`}
      />
      <Select
        label={t('quotas.unit')}
        data={UNITS}
        allowDeselect={false}
        disabled={readOnly}
        {...form.getInputProps(`${path}.unit`)}
        data-testid={`${testPrefix}-unit`}
      />
      <Select
        label={t('quotas.period')}
        data={PERIODS.map((period) => ({ value: period, label: t(`quotas.periodOptions.${period}`) }))}
        allowDeselect={false}
        disabled={readOnly}
        {...form.getInputProps(`${path}.period`)}
        data-testid={`${testPrefix}-period`}
      />
    </SimpleGrid>
  );
}

/** The route of a quota: picked from the node list when it can be read, else kind and typed node id. */
function RoutePicker({
  form,
  index,
  routes,
  readOnly,
}: {
  form: QuotasForm;
  index: number;
  routes: RouteChoices;
  readOnly: boolean;
}) {
  const { t } = useTranslation('users');
  const row = form.values.routes[index];
  if (!row) return null;
  const error = form.errors[`routes.${index}.id`] ?? form.errors[`routes.${index}.kind`];
  if (routes.known) {
    const groups = KINDS.map((kind) => ({
      group: t(`quotas.kind.${kind}`),
      items: selectItems(routes.options, kind, row.kind === kind && row.id ? [row.id] : []).map((item) => ({
        value: routeValue({ kind, id: item.value }),
        label: item.label,
      })),
    })).filter((group) => group.items.length > 0);
    return (
      <Select
        label={t('quotas.route')}
        placeholder={t('nodeAccess.pickPlaceholder')}
        data={groups}
        value={row.id ? routeValue(row) : null}
        onChange={(value) => {
          const route = parseRouteValue(value);
          form.setFieldValue(`routes.${index}.kind`, route?.kind ?? 'node');
          form.setFieldValue(`routes.${index}.id`, route?.id ?? '');
        }}
        error={error}
        searchable
        required
        disabled={readOnly}
        nothingFoundMessage={t('common:noData')}
        style={{ flex: 1 }}
        data-testid="quota-route-select"
      />
    );
  }
  return (
    <Group gap="sm" align="flex-start" style={{ flex: 1 }} wrap="wrap">
      <Select
        label={t('quotas.routeKind')}
        data={KINDS.map((kind) => ({ value: kind, label: t(`quotas.kind.${kind}`) }))}
        allowDeselect={false}
        disabled={readOnly}
        w={{ base: '100%', sm: 200 }}
        {...form.getInputProps(`routes.${index}.kind`)}
        data-testid="quota-route-kind"
      />
      <TextInput
        label={t('quotas.routeId')}
        placeholder="node-…"
        required
        readOnly={readOnly}
        style={{ flex: 1, minWidth: 180 }}
        {...form.getInputProps(`routes.${index}.id`)}
        data-testid="quota-route-id"
      />
    </Group>
  );
}
