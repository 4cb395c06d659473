/** Which cards of the page hold edits not saved yet, by card id. */
export type DirtyCards = Readonly<Record<string, boolean>>;

/** The state after one card reported; the same object when nothing changed (no needless re-render). */
export function withCardDirty(cards: DirtyCards, card: string, dirty: boolean): DirtyCards {
  if ((cards[card] ?? false) === dirty) return cards;
  return { ...cards, [card]: dirty };
}

export function dirtyCardIds(cards: DirtyCards): string[] {
  return Object.entries(cards)
    .filter(([, dirty]) => dirty)
    .map(([card]) => card);
}

/**
 * Whether an in-app navigation must be confirmed: only while something is unsaved, and only when it leaves
 * the page (a change of the query or hash alone keeps the cards and their edits).
 */
export function shouldBlockNavigation(
  anyDirty: boolean,
  current: { pathname: string },
  next: { pathname: string },
): boolean {
  return anyDirty && current.pathname !== next.pathname;
}
