import { Button, Group, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { quotasSchema, type Quotas, type UserDetail, endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import type { RouteChoices } from './node-access-card.js';
import { QuotaFormBody, quotaFormValidate } from './quota-form-body.js';
import { quotasValuesFrom, toQuotasBody, type QuotasValues } from './quota-form.js';

/** The total quota and the quotas of single routes; saving replaces all of them. */
export function QuotasForm({
  user,
  routes,
  readOnly,
}: {
  user: UserDetail;
  routes: RouteChoices;
  readOnly: boolean;
}) {
  const { t } = useTranslation('users');
  const form = useForm<QuotasValues>({
    initialValues: quotasValuesFrom(user.quotas),
    validate: quotaFormValidate(quotasSchema, t('common:validation.required')),
  });
  const save = useEndpointMutation(
    (call, body: Quotas) => call(endpoints.user.setUserQuotas, { params: { id: user.id }, body }),
    [endpoints.user.listUsers],
  );

  return (
    <form
      noValidate
      data-testid="user-quotas-form"
      onSubmit={form.onSubmit((values) =>
        save.mutate(toQuotasBody(values), {
          onSuccess: () => {
            form.resetDirty();
            notifications.show({ color: 'green', message: t('quotas.done') });
          },
        }),
      )}
    >
      <Stack>
        <QuotaFormBody form={form} routes={routes} readOnly={readOnly} saveError={save.error} />
        {!readOnly && (
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending} data-testid="quotas-save">
              {t('common:save')}
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}
