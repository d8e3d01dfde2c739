/**
 * What an agent loop's model requests spend (docs/api.md#usage-and-cost, docs/api.md#budgets): the
 * chat's usage by day, and the budget of the batch that started the turn, which is asked before
 * each request and told what each spent once it answers (or that it ended with no answer: the
 * budget says how many requests were in flight when it was reached).
 */
import { spentBy } from "../../../src/core/budgets/budget";
import type { Usage } from "../../../src/core/usage/usage";
import { answered, mayRequest } from "../jobs/budget-object";
import type { ChatStore } from "../storage/chat-store";

/** `step`: the turn's step whose request answered (`stepOf` in ./agent-loop). */
export async function modelUsed(store: ChatStore, now: number, usage: Usage, step: string): Promise<void> {
  store.usage.modelRequest(now, usage);
  const budget = store.meta("budget");
  // The request itself was counted when the budget let it go.
  if (budget) await answered(store, budget, step, { ...spentBy(usage), llm_calls: 0 });
}

/**
 * The request of the turn's `step`, let go by the budget, ended with no answer (it failed, or never left): it
 * is no longer in flight.
 */
export async function modelUnanswered(store: ChatStore, step: string): Promise<void> {
  const budget = store.meta("budget");
  if (budget) await answered(store, budget, step, {});
}

export function budgetAllows(store: ChatStore, step: string) {
  const budget = store.meta("budget");
  return budget ? mayRequest(store, budget, step) : Promise.resolve({ ok: true as const });
}
