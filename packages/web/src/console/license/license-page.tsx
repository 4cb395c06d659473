import { Button, SimpleGrid, Stack } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconRefresh } from '@tabler/icons-react';
import { endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { registerMessages } from '../../i18n/i18n.js';
import { useSession } from '../../session/session.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { PageHeader } from '../../shell/page-route.js';
import { QueryState } from '../../shell/query-state.js';
import { ActivateLicenseCard } from './activate-license-card.js';
import { DeploymentCard } from './deployment-card.js';
import { EditionUpgradeCard } from './edition-upgrade-card.js';
import { licenseMessages } from './license-messages.js';
import { LicenseStatusCard } from './license-status-card.js';
import { useEndpointMutation, useEndpointQuery } from '../../api/endpoint-hooks.js';

registerMessages('license', licenseMessages);

/** Licence and edition (permission `license`): status, activation, re-check and the edition upgrade. */
export default function LicensePage() {
  const { t } = useTranslation('license');
  const session = useSession();
  const status = useEndpointQuery(endpoints.config.getLicenseStatus, {});
  // Slots in use come from node management (permission `node`); without it the quotas show their maximum only.
  const nodes = useEndpointQuery(endpoints.config.listNodes, {}, { enabled: session.can('node') });
  const refresh = useEndpointMutation(
    (call) => call(endpoints.config.refreshLicense),
    [{ service: 'config' }],
  );

  return (
    <>
      <PageHeader
        title={t('common:nav.license')}
        actions={
          <Button
            variant="default"
            leftSection={<IconRefresh size={16} />}
            loading={refresh.isPending}
            onClick={() =>
              refresh.mutate(undefined, {
                onSuccess: () => notifications.show({ color: 'green', message: t('refreshDone') }),
              })
            }
            data-testid="license-refresh-button"
          >
            {t('refresh')}
          </Button>
        }
      />
      {refresh.isError && (
        <Stack mb="md">
          <ErrorAlert error={refresh.error} />
        </Stack>
      )}
      <QueryState query={status} skeletonRows={8}>
        {(data) => (
          <Stack gap="md">
            <LicenseStatusCard status={data} slotsUsed={nodes.data?.slotsUsed} />
            <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
              <ActivateLicenseCard disabled={!data.publicKeyConfigured} />
              <EditionUpgradeCard status={data} />
            </SimpleGrid>
            <DeploymentCard />
          </Stack>
        )}
      </QueryState>
    </>
  );
}
