/**
 * Who goes next when a flow slot frees (docs/api.md#flow-control): first come, first served within
 * a chat, and across chats the one that has waited longest without a start, so 500 calls queued by
 * one chat do not stand in front of another chat's single call.
 */
export interface Waiter {
  /** The job waiting (its chat's job id). */
  job_id: string;
  chat: string;
  /** Arrival order at this rule and key. */
  seq: number;
  arrived_at: number;
}

/**
 * The waiter to go next, or undefined when none waits. `lastStart`: when each chat last had a call
 * start under this rule and key. A chat has waited since its last start, or since its oldest
 * waiter arrived if that is later.
 */
export function nextWaiter<W extends Waiter>(
  waiters: readonly W[],
  lastStart: (chat: string) => number | undefined,
): W | undefined {
  const head = new Map<string, W>();
  for (const w of waiters) {
    const first = head.get(w.chat);
    if (!first || w.seq < first.seq) head.set(w.chat, w);
  }
  let best: { waiter: W; since: number } | undefined;
  for (const [chat, waiter] of head) {
    const since = Math.max(waiter.arrived_at, lastStart(chat) ?? -Infinity);
    if (!best || since < best.since || (since === best.since && waiter.seq < best.waiter.seq)) best = { waiter, since };
  }
  return best?.waiter;
}
