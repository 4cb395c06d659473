import { Anchor, Group, Paper, Progress, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCheck, IconCircleDashed, IconQuestionMark } from '@tabler/icons-react';
import type { SetupStepState } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { DashboardData } from './dashboard-data.js';
import { SETUP_STEP_PAGES, setupProgress } from './dashboard-view.js';

const MARKS: Record<SetupStepState, { color: string; icon: typeof IconCheck }> = {
  done: { color: 'green', icon: IconCheck },
  todo: { color: 'gray', icon: IconCircleDashed },
  unknown: { color: 'yellow', icon: IconQuestionMark },
};

/**
 * What is left to do before users can play: storage, library, first scan, playback address, users. Each
 * step links to the page that does it; the card goes away once every step is done (and while the checklist
 * is loading or could not be read, so that it never stands in the way of the dashboard).
 */
export function SetupChecklist({ data }: { data: DashboardData }) {
  const { t } = useTranslation('dashboard');
  const setup = data.setup.data;
  const { show, done } = setupProgress(setup);
  if (!setup || !show) return null;
  return (
    <Paper withBorder p="md" radius="md" mb="md" data-testid="setup-checklist">
      <Group justify="space-between" mb="xs" wrap="wrap">
        <Title order={2} size="h4">
          {t('setup.title')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('setup.progress', { done, total: setup.steps.length })}
        </Text>
      </Group>
      <Progress
        value={(done / setup.steps.length) * 100}
        size="sm"
        mb="sm"
        aria-label={t('setup.progress', { done, total: setup.steps.length })}
      />
      <Stack gap="xs" component="ol" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
        {setup.steps.map(({ step, state }) => {
          const mark = MARKS[state];
          const Icon = mark.icon;
          return (
            <Group
              key={step}
              component="li"
              gap="sm"
              wrap="nowrap"
              align="flex-start"
              data-testid="setup-step"
              data-step={step}
              data-state={state}
            >
              <ThemeIcon color={mark.color} variant="light" radius="xl" size="md" aria-hidden>
                <Icon size={16} />
              </ThemeIcon>
              <div>
                <Anchor
                  component={Link}
                  to={SETUP_STEP_PAGES[step]}
                  fw={600}
                  size="sm"
                  td={state === 'done' ? 'line-through' : undefined}
                >
                  {t(`setup.steps.${step}.title`)}
                </Anchor>
                <Text size="xs" c="dimmed">
                  {state === 'unknown' ? t('setup.unknown') : t(`setup.steps.${step}.hint`)}
                </Text>
              </div>
              <Text size="xs" c={mark.color} ml="auto" style={{ whiteSpace: 'nowrap' }}>
                {t(`setup.state.${state}`)}
              </Text>
            </Group>
          );
        })}
      </Stack>
    </Paper>
  );
}
