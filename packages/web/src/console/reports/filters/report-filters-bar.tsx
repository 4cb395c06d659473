import { Badge, Button, Group, Paper, Select, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import {
  REPORT_GRANULARITIES,
  REPORT_MAX_SPAN_DAYS,
  REPORT_PRESETS,
  activityMediaTypeSchema,
  reportGranularitySchema,
  type ReportGranularity,
} from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import type { ReportFilters, WindowProblem } from '../report-window.js';
import { UserFilterSelect, type UserChoice } from './user-filter-select.js';

const MEDIA_TYPES = activityMediaTypeSchema.options;

/**
 * Presets as toggle buttons, the custom range's inputs, media type, user and granularity. The effective
 * granularity the server answered is shown when the span overrode the choice.
 */
export function ReportFiltersBar({
  filters,
  user,
  problem,
  effectiveGranularity,
  onChange,
  onUserChange,
  onCustom,
}: {
  filters: ReportFilters;
  user: UserChoice | null;
  problem: WindowProblem | undefined;
  effectiveGranularity: ReportGranularity | undefined;
  onChange: (patch: Partial<ReportFilters>) => void;
  onUserChange: (user: UserChoice | null) => void;
  /** Switching to custom starts from the range shown. */
  onCustom: () => void;
}) {
  const { t } = useTranslation('reports');
  const problemText = problem ? t(`filters.problems.${problem}`, { days: REPORT_MAX_SPAN_DAYS }) : undefined;
  return (
    <Paper withBorder p="md" mb="md" data-testid="report-filters">
      <Stack gap="sm">
        <Group gap="xs" role="group" aria-label={t('filters.presetGroup')}>
          {REPORT_PRESETS.map((preset) => {
            const active = filters.preset === preset;
            return (
              <Button
                key={preset}
                size="xs"
                variant={active ? 'filled' : 'default'}
                aria-pressed={active}
                data-testid={`preset-${preset}`}
                onClick={() => (preset === 'custom' ? onCustom() : onChange({ preset }))}
              >
                {t(`presets.${preset}`)}
              </Button>
            );
          })}
        </Group>
        {filters.preset === 'custom' && (
          <Group gap="sm" align="flex-start">
            <TextInput
              type="datetime-local"
              label={t('filters.from')}
              value={filters.customFrom}
              onChange={(event) => onChange({ customFrom: event.currentTarget.value })}
              error={problem === 'fromRequired' ? problemText : undefined}
              data-testid="custom-from"
              w={{ base: '100%', sm: 230 }}
            />
            <TextInput
              type="datetime-local"
              label={t('filters.to')}
              value={filters.customTo}
              onChange={(event) => onChange({ customTo: event.currentTarget.value })}
              error={problem && problem !== 'fromRequired' ? problemText : undefined}
              data-testid="custom-to"
              w={{ base: '100%', sm: 230 }}
            />
          </Group>
        )}
        <Group gap="sm" align="flex-end">
          <Select
            label={t('filters.mediaType')}
            data={[
              { value: '', label: t('filters.allMediaTypes') },
              ...MEDIA_TYPES.map((type) => ({ value: type, label: t(`mediaTypes.${type}`) })),
            ]}
            value={filters.mediaType ?? ''}
            onChange={(value) => {
              const parsed = activityMediaTypeSchema.safeParse(value);
              onChange({ mediaType: parsed.success ? parsed.data : null });
            }}
            allowDeselect={false}
            data-testid="filter-media-type"
            w={{ base: '100%', sm: 170 }}
          />
          <UserFilterSelect value={user} onChange={onUserChange} />
          <Select
            label={t('filters.granularity')}
            data={REPORT_GRANULARITIES.map((granularity) => ({
              value: granularity,
              label: t(`granularities.${granularity}`),
            }))}
            value={filters.granularity}
            onChange={(value) => {
              const parsed = reportGranularitySchema.safeParse(value);
              if (parsed.success) onChange({ granularity: parsed.data });
            }}
            allowDeselect={false}
            data-testid="filter-granularity"
            w={{ base: '100%', sm: 150 }}
          />
          {effectiveGranularity && effectiveGranularity !== filters.granularity && (
            <Tooltip label={t('filters.effectiveHint')} multiline w={260}>
              <Badge variant="light" size="lg" tt="none" mb={4} data-testid="effective-granularity">
                {t('filters.effective', { granularity: t(`granularities.${effectiveGranularity}`) })}
              </Badge>
            </Tooltip>
          )}
        </Group>
        <Text size="xs" c="dimmed">
          {t('timeZoneNote')}
        </Text>
      </Stack>
    </Paper>
  );
}
