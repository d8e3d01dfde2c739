/**
 * The chat's side of a batch's budget object (docs/architecture.md#budgets): calls and subagents
 * take their share before they start, an agent loop asks before each model request and adds what it
 * spent. One request per budget for the calls asked together.
 */
import type { BudgetScope, Spent } from "../../../src/core/budgets/budget";
import { budgetName } from "../../../src/core/objects/names";
import type { ChatStore } from "../storage/chat-store";

export const scopeOf = (budget: string) => JSON.parse(budget) as BudgetScope;

const object = (store: ChatStore, scope: BudgetScope) =>
  store.env().BUDGET.getByName(budgetName(store.address().tenant, scope.root_chat, scope.batch_id));

export function takeShares(store: ChatStore, budget: string, asks: { job_id: string; kind: "tool" | "subordinate" }[]) {
  const { tenant, chat_id } = store.address();
  const scope = scopeOf(budget);
  return object(store, scope).take(tenant, scope, chat_id, asks);
}

/** `step`: the turn's step that asks (`stepOf` in ../subagents/agent-loop), one request each. */
export function mayRequest(store: ChatStore, budget: string, step: string) {
  const { tenant, chat_id } = store.address();
  const scope = scopeOf(budget);
  return object(store, scope).mayRequest(tenant, scope, chat_id, step);
}

export function answered(store: ChatStore, budget: string, step: string, spent: Partial<Spent>) {
  const { tenant, chat_id } = store.address();
  const scope = scopeOf(budget);
  return object(store, scope).answered(tenant, scope, chat_id, step, spent);
}

/**
 * Whether `job`'s batch is the top-level batch its budget belongs to (a subagent's jobs count against an
 * inherited one).
 */
export function ownsBudget(job: { budget: string | null; batch_id: string; chat_id: string }): boolean {
  const scope = job.budget ? scopeOf(job.budget) : undefined;
  return scope?.batch_id === job.batch_id && scope.root_chat === job.chat_id;
}

/** The batch that owns the budget is over: its storage may go (after a grace for late answers). Best effort. */
export function closeBudget(store: ChatStore, budget: string): Promise<void> {
  return object(store, scopeOf(budget))
    .close()
    .catch(() => {});
}
