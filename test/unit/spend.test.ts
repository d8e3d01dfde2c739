/** Tenant spending limits (docs/api.md#spending-limits), pure: periods, alerts, texts. */
import { describe, expect, it } from "vitest";
import { NOTHING_SPENT } from "../../src/core/budgets/budget";
import { alertsDue, periodOf, periodStart, spendLimitError, spendSchema } from "../../src/core/budgets/spend";

const limits = spendSchema.parse({ period: "day", tool_calls: 100, cost_usd: 10, alert_at: [0.8, 0.5] });

describe("a spending limit's period", () => {
  it("is the UTC day or month a moment falls in, starting at its first instant", () => {
    const late = Date.parse("2026-12-31T23:59:59.999Z");
    expect(periodOf("day", late)).toBe("2026-12-31");
    expect(periodOf("month", late)).toBe("2026-12");
    expect(periodOf("day", late + 1)).toBe("2027-01-01");
    expect(periodStart("2026-12")).toBe("2026-12-01T00:00:00.000Z");
    expect(periodStart("2026-12-31")).toBe("2026-12-31T00:00:00.000Z");
  });
});

describe("spending alerts", () => {
  it("are due for each threshold crossed and not sent yet, lowest first, and once at the limit", () => {
    const spent = { ...NOTHING_SPENT, tool_calls: 81, cost_usd: 5.0000004 };
    expect(alertsDue(limits, spent, new Set())).toEqual([
      { field: "cost_usd", used: 5, limit: 10, period: "day", threshold: 0.5 },
      { field: "tool_calls", used: 81, limit: 100, period: "day", threshold: 0.5 },
      { field: "tool_calls", used: 81, limit: 100, period: "day", threshold: 0.8 },
    ]);
    expect(alertsDue(limits, spent, new Set(["cost_usd@0.5", "tool_calls@0.5", "tool_calls@0.8"]))).toEqual([]);
    expect(alertsDue(limits, { ...spent, tool_calls: 100 }, new Set(["tool_calls@0.5", "tool_calls@0.8"]))).toEqual([
      { field: "cost_usd", used: 5, limit: 10, period: "day", threshold: 0.5 },
      { field: "tool_calls", used: 100, limit: 100, period: "day", threshold: 1 },
    ]);
  });

  it("default to half and four fifths; a limit must limit something", () => {
    expect(spendSchema.parse({ period: "month", llm_tokens: 5 }).alert_at).toEqual([0.5, 0.8]);
    expect(spendSchema.safeParse({ period: "month" }).success).toBe(false);
    expect(spendSchema.safeParse({ period: "month", tool_calls: 5, alert_at: [1] }).success).toBe(false);
  });
});

describe("a call refused at the limit", () => {
  it("says which limit, how much of it, and for which period", () => {
    expect(spendLimitError({ field: "cost_usd", used: 10.5, limit: 10 }, "month")).toBe(
      "Spending limit reached: cost_usd 10.5 of 10 for this month; the call was not made.",
    );
  });
});
