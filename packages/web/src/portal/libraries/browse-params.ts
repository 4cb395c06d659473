import type { PortalItemType } from '@svc/contracts';

/** Titles on one page of the poster grid (a multiple of 2, 3, 4, 5 and 6 columns). */
export const PAGE_SIZE = 60;

/** What the library browser shows, kept in the address so Back from an item returns to the same view. */
export interface BrowseState {
  /** null: all libraries. */
  libraryId: string | null;
  search: string;
  type: PortalItemType | null;
  page: number;
}

const TYPES: readonly PortalItemType[] = ['movie', 'series'];

export function readBrowseState(params: URLSearchParams): BrowseState {
  const type = params.get('type');
  const page = Number(params.get('page'));
  return {
    libraryId: params.get('library') || null,
    search: params.get('q') ?? '',
    type: TYPES.includes(type as PortalItemType) ? (type as PortalItemType) : null,
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

/** The address form of a state; defaults are left out so a plain visit has a clean address. */
export function writeBrowseState(state: BrowseState): URLSearchParams {
  const params = new URLSearchParams();
  if (state.libraryId) params.set('library', state.libraryId);
  if (state.search) params.set('q', state.search);
  if (state.type) params.set('type', state.type);
  if (state.page > 1) params.set('page', String(state.page));
  return params;
}

/** The query of GET /api/media/me/items for a state (its search is the debounced one). */
export function itemsQuery(state: BrowseState): Record<string, string | number | undefined> {
  return {
    libraryId: state.libraryId ?? undefined,
    search: state.search.trim() || undefined,
    type: state.type ?? undefined,
    limit: PAGE_SIZE,
    offset: (state.page - 1) * PAGE_SIZE,
  };
}

export function pageCount(total: number, pageSize: number = PAGE_SIZE): number {
  return Math.max(1, Math.ceil(total / pageSize));
}
