/** Paging arithmetic of `PagedTable`, apart from React so it is unit-tested. */

/** Pages needed for `total` rows: at least one, so the pager never shows "page 1 of 0". */
export function pageCount(total: number, pageSize: number): number {
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new RangeError(`page size must be a positive integer, got ${pageSize}`);
  }
  if (!Number.isInteger(total) || total < 0) {
    throw new RangeError(`total must be a non-negative integer, got ${total}`);
  }
  return Math.max(1, Math.ceil(total / pageSize));
}

/**
 * `page` moved into 1..pageCount: when the rows of the open last page were deleted, the list goes back to
 * the new last page instead of leaving the reader on an empty page without a pager.
 */
export function pageWithinRange(page: number, total: number, pageSize: number): number {
  if (!Number.isInteger(page)) throw new RangeError(`page must be an integer, got ${page}`);
  return Math.min(Math.max(1, page), pageCount(total, pageSize));
}
