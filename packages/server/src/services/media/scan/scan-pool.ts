/** Lets the event loop answer waiting requests between slices of a long scan. */
export const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Maps `items` with at most `limit` calls of `fn` in flight; the results keep the order of the items. */
export async function mapPool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  });
  await Promise.all(workers);
  return results;
}
