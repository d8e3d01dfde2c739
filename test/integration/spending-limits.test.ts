/**
 * Tenant spending limits (docs/api.md#spending-limits) in the Workers runtime: counted across every
 * chat as the work happens; at the limit, calls and model requests not yet made end `error`,
 * `budget_exhausted`, and new batches are still accepted and end that way (nothing lost);
 * `tenant.spend_alert` goes to the webhook once per threshold; `GET /v1/usage` says where it stands.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import {
  agentConfig,
  api,
  call,
  configure,
  eventually,
  json,
  llmRequests,
  parallel,
  scriptLlm,
  toolConfig,
} from "../helpers";
import { inbox, received, webhookConfig } from "../webhook-inbox";

afterEach(() => reset());

type Job = { state: string; error?: string; error_type?: string };
const alerts = async (hook: string) =>
  (await received(hook))
    .map((r) => JSON.parse(r.body) as { type: string; chat_id: string; data: Record<string, unknown> })
    .filter((e) => e.type === "tenant.spend_alert");

describe("a tenant's spending limit", () => {
  it("holds 50 chats' batches to the day's tool calls, ends the rest not made, and loses nothing", async () => {
    const hook = await inbox("spend-drill");
    await configure(
      webhookConfig(hook, {
        limits: { spend: { period: "day", tool_calls: 100, alert_at: [0.5] } },
        // A filter that sends no alert: spending alerts go all the same.
        webhook: { url: hook, secret: "whsec_dGVzdC13ZWJob29rLXNlY3JldC0xMjM0NTY3OA==", events: ["batch.finished"] },
      }),
    );
    const batches = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        parallel(`spend-${i}`, {
          tool_calls: [call("echo", { i }), call("echo", { i }), call("echo", { i })],
          timeout: 30,
        }),
      ),
    );
    const jobs = batches.flatMap((b) => b.body.jobs as Job[]);
    expect(jobs).toHaveLength(150);
    expect(jobs.filter((j) => j.state === "success")).toHaveLength(100);
    const refused = jobs.filter((j) => j.state !== "success");
    expect(refused).toHaveLength(50);
    for (const job of refused) {
      expect(job).toMatchObject({
        state: "error",
        error_type: "budget_exhausted",
        error: "Spending limit reached: tool_calls 100 of 100 for this day; the call was not made.",
      });
    }
    // A new batch is still accepted, and ends the same way.
    const late = await parallel("spend-late", { tool_calls: [call("echo")], timeout: 10 });
    expect(late.status).toBe(200);
    expect(late.body.jobs[0]).toMatchObject({ state: "error", error_type: "budget_exhausted" });

    const usage = await json(await api("/v1/usage"));
    const today = new Date().toISOString().slice(0, 10);
    expect(usage).toMatchObject({
      period: "day",
      period_start: `${today}T00:00:00.000Z`,
      limits: { tool_calls: 100 },
      used: { tool_calls: 100 },
    });
    expect(usage.by_day).toEqual([{ date: today, used: expect.objectContaining({ tool_calls: 100 }) }]);

    const sent = await eventually(async () => {
      const got = await alerts("spend-drill");
      return got.length >= 2 ? got : undefined;
    });
    const [half, full] = sent.map((e) => e.data).sort((a, b) => Number(a.threshold) - Number(b.threshold));
    // `used`: what was spent when the batch that crossed the threshold took its calls (3 at a time).
    expect(half).toMatchObject({ field: "tool_calls", limit: 100, period: "day", threshold: 0.5 });
    expect(half!.used).toBeGreaterThanOrEqual(50);
    expect(half!.used).toBeLessThan(53);
    expect(full).toMatchObject({ field: "tool_calls", used: 100, limit: 100, period: "day", threshold: 1 });
    // Once each: a later batch past the limit sends nothing more.
    await new Promise((r) => setTimeout(r, 500));
    expect(await alerts("spend-drill")).toHaveLength(2);
  }, 60_000);

  it("stops a subagent's model requests at the month's limit, with its last text and why", async () => {
    await configure(agentConfig("m-spend", { limits: { spend: { period: "month", llm_calls: 1 } } }));
    await scriptLlm("m-spend", [
      { content: "Looking it up.", tool_calls: [{ name: "echo", arguments: { q: 1 } }] },
      { content: "never asked" },
    ]);
    const res = await parallel("spend-llm", {
      tool_calls: [call("call_subordinate", { message: "Find it.", reset: true })],
      timeout: 30,
    });
    expect(res.body.jobs[0]).toMatchObject({
      state: "error",
      error_type: "budget_exhausted",
      error:
        "Last text: Looking it up.\nSpending limit reached: llm_calls 1 of 1 for this month; the call was not made.",
    });
    expect(await llmRequests("m-spend")).toHaveLength(1);
    const usage = await json(await api("/v1/usage"));
    // The one request's call ran, and counts too.
    expect(usage).toMatchObject({ period: "month", used: { llm_calls: 1, tool_calls: 1 } });
  });

  it("lets calls through at once when the limit is raised past what was spent", async () => {
    await configure(toolConfig({ limits: { spend: { period: "day", tool_calls: 1 } } }));
    const ran = await parallel("spend-raise", { tool_calls: [call("echo"), call("echo")], timeout: 10 });
    expect(ran.body.jobs.map((j: Job) => j.state).sort()).toEqual(["error", "success"]);
    await api("/v1/config", { method: "PATCH", body: { limits: { spend: { period: "day", tool_calls: 3 } } } });
    const again = await parallel("spend-raise", {
      tool_calls: [call("echo"), call("echo"), call("echo")],
      timeout: 10,
    });
    expect(again.body.jobs.map((j: Job) => j.state).sort()).toEqual(["error", "success", "success"]);
    expect((await json(await api("/v1/usage"))).used.tool_calls).toBe(3);
  });

  it("answers usage with no limit set, and refuses a limit that limits nothing", async () => {
    await configure(agentConfig("m-none"));
    expect(await json(await api("/v1/usage"))).toMatchObject({ period: null, limits: null, by_day: [] });
    const res = await api("/v1/config", { method: "PATCH", body: { limits: { spend: { period: "day" } } } });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toContain(
      "needs at least one of cost_usd, llm_tokens, llm_calls, tool_calls",
    );
  });
});
