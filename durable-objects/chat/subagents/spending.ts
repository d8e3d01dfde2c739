/**
 * What an agent loop's model requests spend (docs/api.md#usage-and-cost, docs/api.md#budgets,
 * docs/api.md#spending-limits): the chat's usage by day, the budget of the batch that started the
 * turn and the tenant's spending limit, each asked before each request and told what it spent once
 * it answers (or that it ended with no answer: each says how many requests were in flight when it
 * was reached).
 */
import { exhaustedError, spentBy } from "../../../src/core/budgets/budget";
import type { Usage } from "../../../src/core/usage/usage";
import { spendLimitError } from "../../../src/core/budgets/spend";
import { answered, mayRequest } from "../jobs/budget-object";
import { spendAllows, spendAnswered } from "../jobs/spend-object";
import type { ChatStore } from "../storage/chat-store";

/** `step`: the turn's step whose request answered (`stepOf` in ./agent-loop). */
export async function modelUsed(store: ChatStore, now: number, usage: Usage, step: string): Promise<void> {
  store.usage.modelRequest(now, usage);
  const budget = store.meta("budget");
  // The request itself was counted when the budget let it go.
  const spent = { ...spentBy(usage), llm_calls: 0 };
  spendAnswered(store, step, spent);
  if (budget) await answered(store, budget, step, spent);
}

/**
 * The request of the turn's `step`, let go by the budget, ended with no answer (it failed, or never left): it
 * is no longer in flight.
 */
export async function modelUnanswered(store: ChatStore, step: string): Promise<void> {
  const budget = store.meta("budget");
  spendAnswered(store, step, {});
  if (budget) await answered(store, budget, step, {});
}

/**
 * Whether the turn's `step` may ask its model: its batch's budget, then the tenant's spending limit; the
 * text it ends with when one refuses.
 */
export async function budgetAllows(
  store: ChatStore,
  step: string,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const budget = store.meta("budget");
  const batch = budget ? await mayRequest(store, budget, step) : { ok: true as const };
  if (!batch.ok) return { ok: false, error: exhaustedError(batch) };
  const tenant = await spendAllows(store, step);
  if (tenant.ok) return { ok: true };
  // The budget let the request go, but it never leaves: it is not in flight there either.
  if (budget) await answered(store, budget, step, {});
  return { ok: false, error: spendLimitError(tenant, tenant.period) };
}
