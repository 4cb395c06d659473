import { Group, Paper, SimpleGrid, Skeleton, Text } from '@mantine/core';
import { IconArrowDownRight, IconArrowUpRight, IconMinus } from '@tabler/icons-react';
import type { ReportCard, ReportOverviewResponse } from '@svc/contracts';
import type { UseQueryResult } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { formatBytes, formatNumber } from '../../../i18n/format.js';
import { ErrorAlert } from '../../../shell/error-alert.js';
import { CARD_KEYS, type CardKey } from '../report-csv.js';
import { changeDirection, formatChangeRate, formatWatchMs } from '../report-format.js';
import { useLanguage } from '../use-language.js';

function useCardValue() {
  const language = useLanguage();
  return (key: CardKey, value: number): string => {
    if (key === 'watchMs' || key === 'avgWatchMsPerUser') return formatWatchMs(value, language);
    if (key === 'bytes') return formatBytes(value);
    return formatNumber(value);
  };
}

function ChangeLine({ card }: { card: ReportCard }) {
  const { t } = useTranslation('reports');
  const language = useLanguage();
  const direction = changeDirection(card.changeRate);
  const rate = formatChangeRate(card.changeRate, language);
  if (direction === 'none') {
    return (
      <Text size="sm" c="dimmed" data-testid="change" data-direction="none" title={t('cards.noPrevious')}>
        —
      </Text>
    );
  }
  const Icon = direction === 'up' ? IconArrowUpRight : direction === 'down' ? IconArrowDownRight : IconMinus;
  const color = direction === 'up' ? 'teal' : direction === 'down' ? 'red' : 'dimmed';
  const label = direction === 'flat' ? t('cards.flat') : t(`cards.${direction}`, { rate });
  return (
    <Group gap={2} c={color} data-testid="change" data-direction={direction} aria-label={label} title={label}>
      <Icon size={16} aria-hidden />
      <Text size="sm" fw={600} c={color} component="span">
        {rate}
      </Text>
    </Group>
  );
}

/** The six cards: value now, value in the previous period, and the change with an arrow. */
export function OverviewCards({ query }: { query: UseQueryResult<ReportOverviewResponse, unknown> }) {
  const { t } = useTranslation('reports');
  const valueText = useCardValue();
  if (query.isError) return <ErrorAlert error={query.error} onRetry={() => void query.refetch()} />;
  return (
    <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} mb="md" data-testid="report-cards">
      {CARD_KEYS.map((key) => {
        const card = query.data?.cards[key];
        return (
          <Paper key={key} withBorder p="md" data-testid={`report-card-${key}`}>
            <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
              {t(`cards.${key}`)}
            </Text>
            {card ? (
              <>
                <Text fz={28} fw={700} lh={1.25} mt={4} data-testid="value" data-value={card.current}>
                  {valueText(key, card.current)}
                </Text>
                <Group gap="xs" mt={4} wrap="wrap">
                  <ChangeLine card={card} />
                  <Text size="xs" c="dimmed" data-testid="previous" data-value={card.previous}>
                    {t('cards.previous', { value: valueText(key, card.previous) })}
                  </Text>
                </Group>
              </>
            ) : (
              <>
                <Skeleton height={35} mt={4} />
                <Skeleton height={20} mt={4} width="70%" />
              </>
            )}
          </Paper>
        );
      })}
    </SimpleGrid>
  );
}
