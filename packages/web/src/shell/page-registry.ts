import type { ComponentType } from 'react';
import type { Permission } from '@svc/contracts';

/**
 * One entry per page. Adding a page = a module with a default-exported component plus one entry in
 * console/pages.ts or portal/pages.ts; the navigation, permission guard, route and code-split chunk
 * follow from it.
 */
export interface PageEntry {
  /** Path segment below /console or /portal. */
  path: string;
  /** Key in the common namespace (`nav.*`) for the menu and the tab title. */
  labelKey: string;
  /**
   * Menu permission the account needs (console pages; a list means any one of them); portal pages need
   * only a signed-in account.
   */
  permission?: Permission | readonly Permission[];
  icon: ComponentType<{ size?: number; stroke?: number }>;
  load: () => Promise<{ default: ComponentType }>;
}

/** Whether the account may open the page (holds the permission, or one of the listed ones). */
export function mayOpen(page: PageEntry, can: (permission: Permission) => boolean): boolean {
  if (!page.permission) return true;
  const needed = typeof page.permission === 'string' ? [page.permission] : page.permission;
  return needed.some((permission) => can(permission));
}
