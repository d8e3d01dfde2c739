/** Budgets' pure rules (src/core/budgets/budget.ts): the effective budget, what is reached first, the text. */
import { describe, expect, it } from "vitest";
import {
  addSpent,
  askModel,
  budgetSchema,
  effectiveBudget,
  exhaustedError,
  modelAnswered,
  noneLeft,
  NOTHING_SPENT,
  overspent,
  spentBy,
  type Ledger,
} from "../../src/core/budgets/budget";
import { NO_USAGE } from "../../src/core/usage/usage";

describe("a batch's budget", () => {
  it("is the configured one lowered by the request, never raised; none when neither sets a field", () => {
    expect(effectiveBudget({ llm_tokens: 1000, tool_calls: 5 }, { tool_calls: 2, subagents: 3 })).toEqual({
      llm_tokens: 1000,
      tool_calls: 2,
      subagents: 3,
    });
    expect(effectiveBudget({ tool_calls: 5 }, { tool_calls: 50 })).toEqual({ tool_calls: 5 });
    expect(effectiveBudget({}, undefined)).toBeUndefined();
    expect(effectiveBudget({}, {})).toBeUndefined();
  });

  it("has none left of a kind once its limit was counted, and tokens or dollars spent once they reach theirs", () => {
    const spent = addSpent(NOTHING_SPENT, { tool_calls: 2, llm_tokens: 99, cost_usd: 0.1 + 0.2 });
    expect(noneLeft({ tool_calls: 3 }, spent, "tool_calls")).toBeUndefined();
    expect(noneLeft({ tool_calls: 2 }, spent, "tool_calls")).toEqual({ field: "tool_calls", used: 2, limit: 2 });
    expect(noneLeft({ tool_calls: 2 }, spent, "subagents")).toBeUndefined();
    expect(overspent({ llm_tokens: 100, cost_usd: 0.31 }, spent)).toBeUndefined();
    expect(overspent({ llm_tokens: 99, cost_usd: 0.25 }, spent)).toEqual({ field: "llm_tokens", used: 99, limit: 99 });
    expect(overspent({ cost_usd: 0.25 }, spent)).toEqual({ field: "cost_usd", used: 0.3, limit: 0.25 });
    expect(exhaustedError({ field: "llm_tokens", used: 1200, limit: 1000 })).toBe(
      "Budget exhausted: llm_tokens 1200 of 1000; the call was not made.",
    );
  });

  it("counts a model request once as it is let go, however often its step asks, and its tokens once it answers", () => {
    const ledger: Ledger = { spent: { ...NOTHING_SPENT } };
    expect(askModel({ llm_calls: 2 }, ledger, "c t:0")).toBeUndefined();
    // The step waited for room under a flow rule and asks again: still one request.
    expect(askModel({ llm_calls: 2 }, ledger, "c t:0")).toBeUndefined();
    expect(askModel({ llm_calls: 2 }, ledger, "d u:0")).toBeUndefined();
    expect(ledger.spent.llm_calls).toBe(2);
    modelAnswered({ llm_calls: 2 }, ledger, "c t:0", { llm_tokens: 15 });
    expect(ledger.spent).toMatchObject({ llm_calls: 2, llm_tokens: 15 });
    // The other step's request is still out when the budget is reached.
    expect(askModel({ llm_calls: 2 }, ledger, "c t:1")).toEqual({
      field: "llm_calls",
      used: 2,
      limit: 2,
      in_flight: 1,
    });
    // Let go before that but not sent yet (it waited for room): refused now, and it leaves the ledger.
    expect(askModel({ llm_calls: 2 }, ledger, "d u:0")).toEqual({
      field: "llm_calls",
      used: 2,
      limit: 2,
      in_flight: 1,
    });
    expect(ledger.asking).toEqual({});
  });

  it("says, once reached, how many model requests were in flight then, and counts what they spend after", () => {
    const budget = { llm_tokens: 40 };
    const ledger: Ledger = { spent: { ...NOTHING_SPENT } };
    for (const step of ["a", "b", "c", "d", "e", "f"]) expect(askModel(budget, ledger, step)).toBeUndefined();
    // One of them failed: it is no longer out, and spent nothing known.
    modelAnswered(budget, ledger, "f", {});
    modelAnswered(budget, ledger, "a", { llm_tokens: 15 });
    modelAnswered(budget, ledger, "b", { llm_tokens: 15 });
    expect(ledger.reached).toBeUndefined();
    // The third answer reaches it; d and e are still out.
    modelAnswered(budget, ledger, "c", { llm_tokens: 15 });
    const reached = { field: "llm_tokens", used: 45, limit: 40, in_flight: 2 };
    expect(ledger.reached).toEqual(reached);
    modelAnswered(budget, ledger, "d", { llm_tokens: 15 });
    modelAnswered(budget, ledger, "e", { llm_tokens: 15 });
    // What it said stays as it was then; what was spent grows by what was in flight.
    expect(ledger.reached).toEqual(reached);
    expect(ledger.spent).toMatchObject({ llm_calls: 6, llm_tokens: 45 + 2 * 15 });
    expect(askModel(budget, ledger, "g")).toEqual(reached);
    expect(ledger.spent.llm_calls).toBe(6);
  });

  it("counts a model request's prompt and completion tokens together", () => {
    expect(spentBy({ ...NO_USAGE, llm_calls: 1, prompt_tokens: 10, completion_tokens: 5, cost_usd: 0.01 })).toEqual({
      llm_tokens: 15,
      llm_calls: 1,
      tool_calls: 0,
      subagents: 0,
      cost_usd: 0.01,
    });
  });

  it("takes only known fields, none negative", () => {
    expect(budgetSchema.safeParse({ tool_calls: 1, cost_usd: 0.5 }).success).toBe(true);
    expect(budgetSchema.safeParse({ tool_calls: -1 }).success).toBe(false);
    expect(budgetSchema.safeParse({ tool_calls: 1.5 }).success).toBe(false);
    expect(budgetSchema.safeParse({ dollars: 1 }).success).toBe(false);
  });
});
