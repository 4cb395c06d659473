import { Badge, Group } from '@mantine/core';
import type { NodeView } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { probeColor, statusColor } from './node-status.js';

export function StatusBadge({ status }: { status: NodeView['status'] }) {
  const { t } = useTranslation('nodes');
  return (
    <Badge
      color={statusColor(status)}
      variant="light"
      style={{ flexShrink: 0, minWidth: 'max-content' }}
      data-testid="node-status"
      data-status={status}
    >
      {t(`status.${status}`)}
    </Badge>
  );
}

export function ProbeBadge({ probe }: { probe: NodeView['probe'] }) {
  const { t } = useTranslation('nodes');
  return (
    <Badge
      color={probeColor(probe)}
      variant="light"
      style={{ flexShrink: 0, minWidth: 'max-content' }}
      data-testid="node-probe"
    >
      {t(probe ? `probe.${probe.state}` : 'probe.none')}
    </Badge>
  );
}

/** Scope, and "disabled" when the record takes no part. */
export function ScopeBadges({ node }: { node: Pick<NodeView, 'scope' | 'disabled'> }) {
  const { t } = useTranslation('nodes');
  return (
    <Group gap={4} wrap="nowrap">
      <Badge
        color={node.scope === 'EMBEDDED' ? 'grape' : 'blue'}
        variant="outline"
        style={{ flexShrink: 0, minWidth: 'max-content' }}
      >
        {t(`scope.${node.scope}`)}
      </Badge>
      {node.disabled && (
        <Badge color="gray" variant="filled">
          {t('disabledBadge')}
        </Badge>
      )}
    </Group>
  );
}
