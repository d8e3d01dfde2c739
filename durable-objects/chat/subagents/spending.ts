/**
 * What an agent loop's model requests spend (docs/api.md#usage-and-cost, docs/api.md#budgets): the
 * chat's usage by day, and the budget of the batch that started the turn, which is asked before
 * each request and told what each spent once it answers.
 */
import { spentBy } from "../../../src/budgets/budget";
import type { Usage } from "../../../src/usage/usage";
import { answered, mayRequest } from "../jobs/budget-object";
import type { ChatStore } from "../storage/chat-store";

/** `step`: the turn's step whose request answered (`stepOf` in ./agent-loop). */
export async function modelUsed(store: ChatStore, now: number, usage: Usage, step: string): Promise<void> {
  store.usage.modelRequest(now, usage);
  const budget = store.meta("budget");
  // The request itself was counted when the budget let it go.
  if (budget) await answered(store, budget, step, { ...spentBy(usage), llm_calls: 0 });
}

export function budgetAllows(store: ChatStore, step: string) {
  const budget = store.meta("budget");
  return budget ? mayRequest(store, budget, step) : Promise.resolve({ ok: true as const });
}
