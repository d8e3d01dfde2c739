/** Usage's pure rules (src/core/usage/usage.ts): sums, prices, a job's share, days. */
import { describe, expect, it } from "vitest";
import {
  addUsage,
  jobShares,
  jobUsage,
  modelRequest,
  NO_USAGE,
  sharesByDay,
  shownUsage,
} from "../../src/core/usage/usage";

describe("usage", () => {
  it("sums every field, and dollars only once a priced request is in the sum", () => {
    const priced = modelRequest(
      { prompt_tokens: 1000, completion_tokens: 500 },
      { input_per_million: 2.5, output_per_million: 10 },
    );
    expect(priced).toEqual({
      ...NO_USAGE,
      llm_calls: 1,
      prompt_tokens: 1000,
      completion_tokens: 500,
      cost_usd: 0.0075,
    });
    const plain = modelRequest({ prompt_tokens: 10, completion_tokens: 5 }, undefined);
    expect(plain).not.toHaveProperty("cost_usd");
    expect(addUsage(plain, { tool_calls: 2 })).toEqual({
      ...NO_USAGE,
      llm_calls: 1,
      prompt_tokens: 10,
      completion_tokens: 5,
      tool_calls: 2,
    });
    expect(addUsage(plain, priced).cost_usd).toBe(0.0075);
    // A report from before subagents were counted reads as 0 of them.
    expect(addUsage({ llm_calls: 1, prompt_tokens: 1, completion_tokens: 1, tool_calls: 0 } as never)).toEqual({
      ...NO_USAGE,
      llm_calls: 1,
      prompt_tokens: 1,
      completion_tokens: 1,
    });
  });

  it("shows dollars to 6 decimals", () => {
    expect(shownUsage({ ...NO_USAGE, cost_usd: 0.1 + 0.2 }).cost_usd).toBe(0.3);
    expect(shownUsage({ ...NO_USAGE, cost_usd: 0.0000014 }).cost_usd).toBe(0.000001);
  });

  it("counts a tool call once it was claimed, and a subordinate as its child reported it", () => {
    expect(jobUsage({ usage: null, kind: "tool", attempt: 1 }).tool_calls).toBe(1);
    expect(jobUsage({ usage: null, kind: "tool", attempt: 0 })).toEqual(NO_USAGE);
    const reported = { ...NO_USAGE, llm_calls: 3, tool_calls: 4, subagents: 2 };
    expect(jobUsage({ usage: JSON.stringify(reported), kind: "subordinate", attempt: 1 })).toEqual(reported);
    expect(jobUsage({ usage: null, kind: "subordinate", attempt: 0 })).toEqual(NO_USAGE);
  });

  it("gives a chat as its own a tool call whole, a subagent as one, and sums ended jobs by the day they ended", () => {
    const sub = {
      usage: JSON.stringify({ ...NO_USAGE, llm_calls: 2, subagents: 3 }),
      kind: "subordinate" as const,
      attempt: 1,
    };
    expect(jobShares(sub)).toEqual({
      own: { ...NO_USAGE, subagents: 1 },
      subtree: { ...NO_USAGE, llm_calls: 2, subagents: 3 },
    });
    const day = (iso: string) => Date.parse(iso);
    const days = sharesByDay([
      { ...sub, completed_at: day("2026-12-01T10:00:00Z") },
      { usage: null, kind: "tool", attempt: 1, completed_at: day("2026-12-01T23:59:59Z") },
      { usage: null, kind: "tool", attempt: 1, completed_at: day("2026-12-02T00:00:00Z") },
      { usage: null, kind: "tool", attempt: 1, completed_at: null },
    ]);
    expect([...days.keys()]).toEqual(["2026-12-01", "2026-12-02"]);
    expect(days.get("2026-12-01")).toEqual({
      own: { ...NO_USAGE, tool_calls: 1, subagents: 1 },
      subtree: { ...NO_USAGE, llm_calls: 2, tool_calls: 1, subagents: 3 },
    });
  });
});
