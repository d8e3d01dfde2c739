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
  // In arrival order, a chat's first waiter is its head, and a head's wait began at its arrival or
  // later: once a head arrived after the best wait found began, no later one can beat it. A line of
  // one call per chat (the common case) stops at its first waiter.
  const ordered = isInSeqOrder(waiters) ? waiters : [...waiters].sort((a, b) => a.seq - b.seq);
  const seen = new Set<string>();
  let best: { waiter: W; since: number } | undefined;
  for (const waiter of ordered) {
    if (best && waiter.arrived_at > best.since) break;
    if (seen.has(waiter.chat)) continue;
    seen.add(waiter.chat);
    const since = Math.max(waiter.arrived_at, lastStart(waiter.chat) ?? -Infinity);
    if (!best || since < best.since) best = { waiter, since };
  }
  return best?.waiter;
}

function isInSeqOrder(waiters: readonly Waiter[]): boolean {
  for (let i = 1; i < waiters.length; i++) if (waiters[i]!.seq < waiters[i - 1]!.seq) return false;
  return true;
}
