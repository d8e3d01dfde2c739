/**
 * The tenant's spending limit (docs/api.md#spending-limits): a call of a tenant with `limits.spend`
 * takes its share from the tenant's spend object as it starts (after every other gate), so what is
 * counted is what ran; at the limit it ends `error` instead, not made. Every call of the chat waiting
 * here is asked in one request. Scope: the chat.
 */
import { spendLimitError } from "../../../src/core/budgets/spend";
import { ASK_BACKUP_MS } from "../jobs/batch-rows";
import { spendLimits, takeSpend } from "../jobs/spend-object";
import { letGo, type Gate } from "./gate";

/** Calls asked in one run. */
const ASKED_PER_RUN = 200;

export const spendGate: Gate = {
  reason: "spend",
  afterEnd: () => [],
  async open({ store, machine, dispatcher }, _scope, now) {
    const waiting = store.jobs.waitingAt("spend").slice(0, ASKED_PER_RUN);
    if (waiting.length === 0) return;
    store.timers.setEarliest("gate", "spend", now + ASK_BACKUP_MS);
    const limits = spendLimits(store);
    // The limit was taken away since these calls were admitted: nothing holds them.
    const answers = limits
      ? await takeSpend(
          store,
          limits,
          waiting.map((j) => j.job_id),
        )
      : undefined;
    const start = store.transaction(() => {
      const started: string[] = [];
      waiting.forEach((job, i) => {
        const current = store.jobs.get(job.job_id);
        const answer = answers?.[i] ?? { ok: true as const };
        // ended meanwhile: a share taken for nothing
        if (current?.state !== "pending" || current.waiting_for !== "spend") return;
        if (!answer.ok)
          machine.finish(
            current,
            { state: "error", error: spendLimitError(answer, limits!.period), error_type: "budget_exhausted" },
            now,
          );
        else if (letGo(store, current, now)) started.push(job.job_id);
      });
      if (store.jobs.waitingAt("spend").length === 0) store.timers.clear("gate", "spend");
      return started;
    });
    await dispatcher.start(start);
  },
};
