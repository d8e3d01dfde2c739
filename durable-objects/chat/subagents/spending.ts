/**
 * What an agent loop's model requests spend (docs/api.md#usage-and-cost, docs/api.md#budgets): the
 * chat's usage by day, and the budget of the batch that started the turn, which is asked before
 * each request and told what each spent once it answers.
 */
import { spentBy } from "../../../src/budgets/budget";
import type { Usage } from "../../../src/usage/usage";
import { mayRequest, spend } from "../jobs/budget-object";
import type { ChatStore } from "../storage/chat-store";

export async function modelUsed(store: ChatStore, now: number, usage: Usage): Promise<void> {
  store.usage.modelRequest(now, usage);
  const budget = store.meta("budget");
  // The request itself was counted when the budget let it go.
  if (budget) await spend(store, budget, { ...spentBy(usage), llm_calls: 0 });
}

export function budgetAllows(store: ChatStore) {
  const budget = store.meta("budget");
  return budget ? mayRequest(store, budget) : Promise.resolve({ ok: true as const });
}
