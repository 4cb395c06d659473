import { Badge, Card, Code, SimpleGrid, Text, Title } from '@mantine/core';
import { endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { QueryState } from '../../shell/query-state.js';

/** The edition and what it allows. */
export function DeploymentCard() {
  const { t } = useTranslation('license');
  const query = useEndpointQuery(endpoints.config.getCapabilities, {});
  return (
    <Card withBorder padding="md" data-testid="deployment-card">
      <Title order={2} size="h4" mb="xs">
        {t('deployment.title')}
      </Title>
      <QueryState query={query} skeletonRows={4}>
        {(capabilities) => (
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <div>
              <Text size="xs" c="dimmed">
                {t('status.edition')}
              </Text>
              <Badge
                variant="light"
                color={capabilities.edition === 'DISTRIBUTED' ? 'teal' : 'gray'}
                data-testid="deployment-edition"
              >
                {t(`editions.${capabilities.edition}`)}
              </Badge>
            </div>
            <div>
              <Text size="xs" c="dimmed">
                {t('deployment.mode')}
              </Text>
              <Code>{capabilities.deploymentMode}</Code>
            </div>
            <div>
              <Text size="xs" c="dimmed">
                {t('deployment.embeddedStorage')}
              </Text>
              <Code>{capabilities.embeddedNodes.storage}</Code>
            </div>
            <div>
              <Text size="xs" c="dimmed">
                {t('deployment.embeddedPlayAgent')}
              </Text>
              <Code>{capabilities.embeddedNodes.playAgent}</Code>
            </div>
            <div>
              <Text size="xs" c="dimmed">
                {t('deployment.externalNodes')}
              </Text>
              <Text size="sm">
                {capabilities.externalNodes ? t('deployment.allowed') : t('deployment.notAllowed')}
              </Text>
            </div>
          </SimpleGrid>
        )}
      </QueryState>
    </Card>
  );
}
