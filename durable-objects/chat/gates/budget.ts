/**
 * A batch's budget (docs/api.md#budgets): a call or subagent of a batch with a budget takes its
 * share from the batch's budget object as it starts (after every other gate), so what is counted is
 * what ran; once the budget is reached it ends `error` instead, not made. Every call of the chat
 * waiting here is asked in one request per budget. Scope: the chat.
 */
import { exhaustedError, type Reached } from "../../../src/core/budgets/budget";
import type { JobRow } from "../../../src/core/jobs/job";
import { ASK_BACKUP_MS } from "../jobs/batch-rows";
import { takeShares } from "../jobs/budget-object";
import { letGo, type Gate, type GateParts } from "./gate";

export type { Reached };

/** Calls asked in one run. */
const ASKED_PER_RUN = 200;

export const budgetGate: Gate = {
  reason: "budget",
  afterEnd: () => [],
  async open({ store, machine, dispatcher }, _scope, now) {
    const waiting = store.jobs.waitingAt("budget").slice(0, ASKED_PER_RUN);
    if (waiting.length === 0) return;
    store.timers.setEarliest("gate", "budget", now + ASK_BACKUP_MS);
    const byBudget = new Map<string, JobRow[]>();
    for (const job of waiting) byBudget.set(job.budget!, [...(byBudget.get(job.budget!) ?? []), job]);
    const answers = new Map<string, Awaited<ReturnType<typeof takeShares>>[number]>();
    for (const [budget, jobs] of byBudget) {
      const got = await takeShares(
        store,
        budget,
        jobs.map((j) => ({ job_id: j.job_id, kind: j.kind })),
      );
      jobs.forEach((job, i) => {
        answers.set(job.job_id, got[i]!);
      });
    }
    const start = store.transaction(() => {
      const started: string[] = [];
      for (const job of waiting) {
        const current = store.jobs.get(job.job_id);
        const answer = answers.get(job.job_id)!;
        // ended meanwhile: a share taken for nothing
        if (current?.state !== "pending" || current.waiting_for !== "budget") continue;
        if (!answer.ok)
          machine.finish(
            current,
            { state: "error", error: exhaustedError(answer), error_type: "budget_exhausted" },
            now,
          );
        else if (letGo(store, current, now)) started.push(job.job_id);
      }
      if (store.jobs.waitingAt("budget").length === 0) store.timers.clear("gate", "budget");
      return started;
    });
    await dispatcher.start(start);
  },
};

/**
 * The batch's budget object says the budget was reached: this chat's calls of it not yet started end
 * `error`, not made (its running ones finish; its agent loop's next model request is refused), and the
 * top-level chat announces `batch.budget_exhausted`, once.
 */
export function budgetReached(
  { store, machine, announce }: GateParts,
  rootChat: string,
  batchId: string,
  over: Reached,
  now: number,
): void {
  store.transaction(() => {
    // Calls still held by an earlier gate. Those at this gate go as the budget answers them (the last
    // shares it granted may be among them), and those let go have their share and are starting.
    for (const job of store.jobs.pendingUnderBudget(rootChat, batchId)) {
      if (job.waiting_for !== null && job.waiting_for !== "budget")
        machine.finish(job, { state: "error", error: exhaustedError(over), error_type: "budget_exhausted" }, now);
    }
    const announced = `budget_reached:${batchId}`;
    if (rootChat !== store.address().chat_id || store.meta(announced)) return;
    store.setMeta(announced, "1");
    const first = store.jobs.byBatch(batchId)[0];
    announce.budgetExhausted(batchId, { metadata: first?.metadata ?? null, trace: first?.trace ?? null }, over, now);
  });
}
