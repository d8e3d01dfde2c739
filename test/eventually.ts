/**
 * Polls a condition on real time; for waiting on background work, not for timing assertions.
 * No imports, so the Node-side tests (client, example bot) share it with the workerd ones.
 */
export async function eventually<T>(probe: () => Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const until = performance.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (performance.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}
