/** The dashboard's Spending panel words (src/edge/dashboard/assets/spend-panel.js), in Node as the page loads it. */
import { describe, expect, it } from "vitest";

interface SpendPanel {
  spendLines(usage: unknown): {
    period: string;
    lines: { field: string; text: string; share: number; reached: boolean }[];
  } | null;
}
const panel = (await import(
  new URL("../../src/edge/dashboard/assets/spend-panel.js", import.meta.url).href
)) as SpendPanel;

describe("the Spending panel", () => {
  it("shows each limit's spend this period, its share for a bar, and which limit is reached", () => {
    const spend = panel.spendLines({
      period: "month",
      limits: { cost_usd: 500, tool_calls: 100 },
      used: { cost_usd: 123.456, tool_calls: 100, llm_tokens: 7, llm_calls: 1, subagents: 0 },
    });
    expect(spend).toEqual({
      period: "this month (UTC)",
      lines: [
        { field: "cost_usd", text: "cost_usd $123.46 of $500.00", share: 0.246912, reached: false },
        { field: "tool_calls", text: "tool_calls 100 of 100", share: 1, reached: true },
      ],
    });
  });

  it("is not shown without a spending limit", () => {
    expect(panel.spendLines({ period: null, limits: null, used: {}, by_day: [] })).toBeNull();
  });
});
