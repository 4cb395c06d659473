/** A library an endpoint can subscribe to, as GET …/outbound-webhooks/libraries answers it. */
export interface SubscribableLibrary {
  id: string;
  name: string;
}

/**
 * The choices of the subscription field: every library, plus ids already chosen that name no library any
 * more (deleted since). Those must stay visible and selected: dropping them would silently widen a
 * subscription to "every library" when the list became empty.
 */
export function libraryOptions(
  libraries: readonly SubscribableLibrary[],
  selectedIds: readonly string[],
  deletedLabel: (id: string) => string,
): { value: string; label: string }[] {
  const known = new Set(libraries.map((library) => library.id));
  return [
    ...libraries.map((library) => ({ value: library.id, label: library.name })),
    ...selectedIds.filter((id) => !known.has(id)).map((id) => ({ value: id, label: deletedLabel(id) })),
  ];
}

/** The subscription as the list shows it: null for every library, else the names (deleted ones labelled). */
export function subscriptionNames(
  libraryIds: readonly string[],
  libraries: readonly SubscribableLibrary[],
  deletedLabel: (id: string) => string,
): string[] | null {
  if (libraryIds.length === 0) return null;
  const names = new Map(libraries.map((library) => [library.id, library.name]));
  return libraryIds.map((id) => names.get(id) ?? deletedLabel(id));
}
