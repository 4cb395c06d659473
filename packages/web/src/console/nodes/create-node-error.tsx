import { Alert, Anchor, Stack, Text } from '@mantine/core';
import { nodeServiceTypeSchema } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useSession } from '../../session/session.js';
import { ErrorAlert, type FieldErrorTarget } from '../../shell/error-alert.js';
import { licenceRefusal, type LicenceRefusal } from './node-errors.js';
import { serviceTypeKey } from './node-status.js';

/** A failed creation: licence and edition refusals explained with a way out, any other error as usual. */
export function CreateNodeError({ error, form }: { error: unknown; form?: FieldErrorTarget }) {
  const refusal = licenceRefusal(error);
  if (!refusal) return <ErrorAlert error={error} {...(form ? { form } : {})} />;
  return <LicenceRefusalAlert refusal={refusal} />;
}

function LicenceRefusalAlert({ refusal }: { refusal: LicenceRefusal }) {
  const { t } = useTranslation('nodes');
  const session = useSession();
  let text: string;
  switch (refusal.kind) {
    case 'quota': {
      const type = nodeServiceTypeSchema.safeParse(refusal.serviceType);
      text =
        type.success && refusal.used !== null && refusal.max !== null
          ? t('refusal.quota', { type: t(serviceTypeKey(type.data)), used: refusal.used, max: refusal.max })
          : t('refusal.quotaUnknown');
      break;
    }
    case 'edition':
      text = t('refusal.edition');
      break;
    case 'notActive':
      text = refusal.state ? t('refusal.notActive', { state: refusal.state }) : t('refusal.notActiveUnknown');
      break;
    case 'unavailable':
      text = t('refusal.unavailable');
      break;
  }
  return (
    <Alert
      color={refusal.kind === 'unavailable' ? 'yellow' : 'red'}
      role="alert"
      data-testid="licence-refusal"
      data-kind={refusal.kind}
    >
      <Stack gap={4}>
        <Text size="sm" fw={500}>
          {text}
        </Text>
        {refusal.kind === 'quota' && <Text size="sm">{t('refusal.quotaHint')}</Text>}
        {refusal.kind !== 'unavailable' && session.can('license') && (
          <Anchor component={Link} to="/console/license" size="sm">
            {t('overview.openLicence')}
          </Anchor>
        )}
      </Stack>
    </Alert>
  );
}
