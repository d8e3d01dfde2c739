/**
 * Runs `fn` over `items` with at most `limit` calls in flight. Production
 * Workers allow 6 simultaneous outbound connections per invocation (local
 * workerd does not enforce it); fanout keeps any one invocation at ≤ 4.
 */
export const MAX_OPEN_CONNECTIONS = 4;

export async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
