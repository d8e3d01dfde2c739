/**
 * The dashboard's Approvals panel words and usage words (src/edge/dashboard/assets/approvals.js, batches.js),
 * in Node as the page loads them.
 */
import { describe, expect, it } from "vitest";

interface Approvals {
  timeLeft(iso: string, now?: number): string;
  approvalRows(
    list: unknown,
    now?: number,
  ): { chatId: string; jobId: string; tool: string; args: string; asked: string; expires: string }[];
}
interface Batches {
  usageText(usage: unknown): string | null;
  batchUsage(jobs: { usage?: unknown }[]): Record<string, number>;
}
const approvals = (await import(
  new URL("../../src/edge/dashboard/assets/approvals.js", import.meta.url).href
)) as Approvals;
const batches = (await import(new URL("../../src/edge/dashboard/assets/batches.js", import.meta.url).href)) as Batches;

const NOW = Date.parse("2026-12-05T10:00:00Z");
const iso = (ms: number) => new Date(NOW + ms).toISOString();

describe("the Approvals panel", () => {
  it("says what would run, with what, who asked where, and how long is left", () => {
    const rows = approvals.approvalRows(
      {
        approvals: [
          {
            chat_id: "tg-42",
            job_id: "send-1",
            tool_name: "send_email",
            tool_args: { to: "a@example.com" },
            agent: "default",
            expires_at: iso(23 * 3_600_000),
          },
          {
            chat_id: "sub-9",
            job_id: "pay-2",
            tool_name: "payments__refund",
            tool_args: null,
            agent: "billing",
            expires_at: iso(-1),
          },
        ],
      },
      NOW,
    );
    expect(rows).toEqual([
      {
        chatId: "tg-42",
        jobId: "send-1",
        tool: "send_email",
        args: '{\n  "to": "a@example.com"\n}',
        asked: "asked by the bot's agent in tg-42",
        expires: "expires in 23 h",
      },
      {
        chatId: "sub-9",
        jobId: "pay-2",
        tool: "payments__refund",
        args: "(too long to list: open the job)",
        asked: "asked by the billing agent in sub-9",
        expires: "expires now",
      },
    ]);
    expect([30_000, 5 * 60_000, 3 * 86_400_000].map((ms) => approvals.timeLeft(iso(ms), NOW))).toEqual([
      "in 30 s",
      "in 5 min",
      "in 3 d",
    ]);
  });
});

describe("usage in words", () => {
  it("names what was taken, leaves out what was not, and sums a batch's jobs with their dollars", () => {
    expect(
      batches.usageText({
        llm_calls: 2,
        prompt_tokens: 40,
        completion_tokens: 20,
        tool_calls: 1,
        subagents: 1,
        cost_usd: 0.00015,
      }),
    ).toBe("2 model requests · 60 tokens · 1 tool call · 1 subagent · $0.000150");
    expect(
      batches.usageText({ llm_calls: 0, prompt_tokens: 0, completion_tokens: 0, tool_calls: 0, subagents: 0 }),
    ).toBeNull();
    expect(batches.usageText(null)).toBeNull();
    const sum = batches.batchUsage([
      { usage: { tool_calls: 1, llm_calls: 0 } },
      { usage: { llm_calls: 2, prompt_tokens: 5, cost_usd: 0.1 } },
      {},
    ]);
    expect(sum).toEqual({
      llm_calls: 2,
      prompt_tokens: 5,
      completion_tokens: 0,
      tool_calls: 1,
      subagents: 0,
      cost_usd: 0.1,
    });
  });
});
