/**
 * The sequential tier of a tiered batch (docs/api.md#tiered-execution-and-the-tool-calls-route):
 * its calls go one at a time in call order, each once every call of the batch before it has ended.
 * Scope: the batch.
 */
import type { ChatStore } from "../storage/chat-store";
import { letGo, type Gate } from "./gate";

/**
 * Lets the batch's next call of its sequential tier go, when nothing else of the batch is active; its id when
 * it may start now.
 */
export function nextOfTier(store: ChatStore, batchId: string, now: number): string | undefined {
  const next = store.jobs.nextInTier(batchId);
  if (!next) return undefined;
  return letGo(store, next, now) ? next.job_id : undefined;
}

export const tierGate: Gate = {
  reason: "tier",
  afterEnd: (_store, ended, active) =>
    ended.waiting_for !== "tier" && active.released === 0 && active.tier > 0 ? [ended.batch_id] : [],
  async open({ store, dispatcher }, batchId, now) {
    const next = store.transaction(() => nextOfTier(store, batchId, now));
    if (next) await dispatcher.start([next]);
  },
};
