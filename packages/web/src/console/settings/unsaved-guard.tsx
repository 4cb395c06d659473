import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Button, Group, List, Modal, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useBlocker } from 'react-router';
import { dirtyCardIds, shouldBlockNavigation, withCardDirty, type DirtyCards } from './unsaved-changes.js';

/**
 * The cards' dirty flags: `reporter(card)` gives each card one stable callback (so a card's effect does not
 * run again on every render of the page).
 */
export function useDirtyCards() {
  const [cards, setCards] = useState<DirtyCards>({});
  const reporters = useRef(new Map<string, (dirty: boolean) => void>());
  const reporter = useCallback((card: string) => {
    let report = reporters.current.get(card);
    if (!report) {
      report = (dirty: boolean) => setCards((current) => withCardDirty(current, card, dirty));
      reporters.current.set(card, report);
    }
    return report;
  }, []);
  const dirtyCards = useMemo(() => dirtyCardIds(cards), [cards]);
  return { dirtyCards, reporter };
}

/**
 * While any card is unsaved: closing or reloading the tab asks the browser's own question (beforeunload),
 * and leaving the page inside the app asks to stay or leave.
 */
export function UnsavedChangesGuard({
  dirtyCards,
  cardTitle,
}: {
  dirtyCards: string[];
  cardTitle: (card: string) => string;
}) {
  const { t } = useTranslation('settings');
  const anyDirty = dirtyCards.length > 0;

  useEffect(() => {
    if (!anyDirty) return;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers ask only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', warn);
    // Lets a browser test wait until the question is armed (the effect runs after the marker is drawn).
    document.documentElement.dataset.unsavedGuard = 'armed';
    return () => {
      window.removeEventListener('beforeunload', warn);
      delete document.documentElement.dataset.unsavedGuard;
    };
  }, [anyDirty]);

  const blocker = useBlocker(({ currentLocation, nextLocation }) =>
    shouldBlockNavigation(anyDirty, currentLocation, nextLocation),
  );

  return (
    <Modal
      opened={blocker.state === 'blocked'}
      onClose={() => blocker.reset?.()}
      title={t('guard.title')}
      centered
      data-testid="unsaved-guard"
    >
      <Stack gap="sm">
        <Text size="sm">{t('guard.body')}</Text>
        <List size="sm">
          {dirtyCards.map((card) => (
            <List.Item key={card}>{cardTitle(card)}</List.Item>
          ))}
        </List>
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={() => blocker.reset?.()} data-testid="unsaved-guard-stay">
            {t('guard.stay')}
          </Button>
          <Button color="red" onClick={() => blocker.proceed?.()} data-testid="unsaved-guard-leave">
            {t('guard.leave')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
