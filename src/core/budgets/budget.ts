/**
 * Budgets (docs/api.md#budgets), pure: what a top-level batch and everything it
 * starts may spend, what a request may lower it to, how what was spent meets it, and the texts.
 * The batch's budget object (durable-objects/budget) keeps the count across its child chats.
 */
import { z } from "zod";
import type { Usage } from "../usage/usage";

export const BUDGET_FIELDS = ["llm_tokens", "llm_calls", "tool_calls", "subagents", "cost_usd"] as const;
export type BudgetField = (typeof BUDGET_FIELDS)[number];
export type Budget = Partial<Record<BudgetField, number>>;
export type Spent = Record<BudgetField, number>;

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
export const budgetSchema = z.strictObject({
  llm_tokens: count.optional().describe("Prompt and completion tokens of every model request."),
  llm_calls: count.optional().describe("Model requests."),
  tool_calls: count.optional().describe("Tool calls made."),
  subagents: count.optional().describe("Subagents started."),
  cost_usd: z.number().min(0).max(1_000_000).optional().describe("Dollars, with `llm.prices` set."),
});

/** The budget a job counts against: its top-level chat and batch (which name the budget's object) and the limits. */
export interface BudgetScope {
  root_chat: string;
  batch_id: string;
  limits: Budget;
}

export const NOTHING_SPENT: Spent = { llm_tokens: 0, llm_calls: 0, tool_calls: 0, subagents: 0, cost_usd: 0 };

/**
 * A batch's budget: the configured one, lowered by the request's (`?budget=`), never raised; undefined when
 * neither sets any field.
 */
export function effectiveBudget(configured: Budget, requested: Budget | undefined): Budget | undefined {
  const budget: Budget = {};
  for (const field of BUDGET_FIELDS) {
    const limits = [configured[field], requested?.[field]].filter((v): v is number => v !== undefined);
    if (limits.length) budget[field] = Math.min(...limits);
  }
  return Object.keys(budget).length ? budget : undefined;
}

/** What a job's usage spends of a budget. */
export const spentBy = (u: Usage): Spent => ({
  llm_tokens: u.prompt_tokens + u.completion_tokens,
  llm_calls: u.llm_calls,
  tool_calls: u.tool_calls,
  subagents: u.subagents,
  cost_usd: u.cost_usd ?? 0,
});

export const addSpent = (a: Spent, b: Partial<Spent>): Spent =>
  Object.fromEntries(BUDGET_FIELDS.map((f) => [f, a[f] + (b[f] ?? 0)])) as Spent;

/**
 * What a budget says when it stops something: the field, what was spent of it, and its limit; once
 * reached, also the model requests then in flight (let go, not answered yet), whose tokens and cost
 * come on top of `used` (it is what was spent when the budget was reached, not the batch's total).
 */
export type Reached = { field: BudgetField; used: number; limit: number; in_flight?: number };

/**
 * Whether one more of `field` (a model request, a tool call, a subagent) fits: none is left once
 * as many as the limit were counted. A batch that spends exactly its budget is never stopped.
 */
export function noneLeft(
  budget: Budget,
  spent: Spent,
  field: "llm_calls" | "tool_calls" | "subagents",
): Reached | undefined {
  const limit = budget[field];
  return limit !== undefined && spent[field] >= limit ? { field, used: spent[field], limit } : undefined;
}

/** Tokens and dollars are known once a request answers: the first of them spent up to its limit. */
export function overspent(budget: Budget, spent: Spent): Reached | undefined {
  for (const field of ["llm_tokens", "cost_usd"] as const) {
    const limit = budget[field];
    if (limit !== undefined && spent[field] >= limit) return { field, used: round(field, spent[field]), limit };
  }
  return undefined;
}

/**
 * What a batch's budget keeps: what was spent, what stopped it, and the model requests it let go
 * whose answers have not come back, by the step that asked (its chat, its turn, the step's number).
 */
export interface Ledger {
  spent: Spent;
  reached?: Reached;
  /** Absent in a budget kept before requests were known by their step. */
  asking?: Record<string, true>;
}

/** The first thing to reach the budget stops it, with the model requests in flight at that moment. */
export function stop(ledger: Ledger, reached: Reached | undefined): Reached | undefined {
  if (!ledger.reached && reached) ledger.reached = { ...reached, in_flight: Object.keys(ledger.asking ?? {}).length };
  return ledger.reached;
}

/**
 * A model request about to leave for `step`: counted as it is let go (so `llm_calls` can never be
 * overrun), or the reason it may not. A step that asks again (its request waited for room under a
 * flow rule) was counted already: it takes nothing more, as a job that asks again for its share.
 */
export function askModel(budget: Budget, ledger: Ledger, step: string): Reached | undefined {
  ledger.asking ??= {};
  const asking = ledger.asking;
  if (asking[step]) {
    // Let go before the budget was reached but not sent yet: now it never is.
    if (ledger.reached) delete asking[step];
    return ledger.reached;
  }
  if (stop(ledger, noneLeft(budget, ledger.spent, "llm_calls"))) return ledger.reached;
  ledger.spent = addSpent(ledger.spent, { llm_calls: 1 });
  asking[step] = true;
  return undefined;
}

/**
 * The model request let go for `step` is no longer in flight: it answered, and its tokens and cost
 * are counted (the request itself was when it was let go), or it ended with no answer (it failed,
 * or never left) and spent nothing known. Counted also after the budget was reached: what it said
 * then (`used`, `in_flight`) stays as it was.
 */
export function modelAnswered(budget: Budget, ledger: Ledger, step: string, spent: Partial<Spent>): void {
  if (ledger.asking) delete ledger.asking[step];
  ledger.spent = addSpent(ledger.spent, spent);
  stop(ledger, overspent(budget, ledger.spent));
}

const round = (field: BudgetField, n: number) => (field === "cost_usd" ? Math.round(n * 1e6) / 1e6 : n);

/** The text a call not made, or an agent loop stopped, ends with. */
export const exhaustedError = ({ field, used, limit }: Reached) =>
  `Budget exhausted: ${field} ${used} of ${limit}; the call was not made.`;
