/**
 * `run` over `items`, at most `size` at a time (a provider's requests in flight), results in the items'
 * order.
 */
export async function inBatches<T, R>(items: readonly T[], size: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const step = Math.max(1, size);
  const out: R[] = [];
  for (let start = 0; start < items.length; start += step) {
    out.push(...(await Promise.all(items.slice(start, start + step).map(run))));
  }
  return out;
}
