/** Tools as functions: called on fanout's production path, signed, retried by `read_only`, cut off at the deadline. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFanout, ToolHttpError, type TestFanout, type ToolContext } from "../src/index.js";

let fanout: TestFanout;
let flaky = 0;
const aborted: string[] = [];

beforeAll(async () => {
  fanout = await startFanout({
    tools: {
      search: {
        description: "Search the web.",
        parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
        read_only: true,
        run: ({ q }: { q: string }, ctx: ToolContext) => ({
          q,
          job: ctx.jobId,
          chat: ctx.chatId,
          attempt: ctx.attempt,
          ...(ctx.traceparent ? { traceparent: ctx.traceparent, tracestate: ctx.tracestate } : {}),
        }),
      },
      send_email: {
        run: () => {
          throw new Error("mailbox full");
        },
      },
      flaky_lookup: {
        read_only: true,
        run: () => {
          if (++flaky === 1) throw new ToolHttpError(503, "warming up");
          return "found on the second try";
        },
      },
      slow: {
        timeout_seconds: 1,
        run: (_args: unknown, { signal, jobId }: ToolContext) =>
          new Promise((_, reject) =>
            signal.addEventListener("abort", () => (aborted.push(jobId), reject(signal.reason))),
          ),
      },
    },
  });
});
afterAll(() => fanout.stop());

describe("tools as functions", () => {
  it("run with the call's arguments and its job, chat and attempt; the result is the job's", async () => {
    const answer = await fanout.client.parallel("tools-1", {
      tool_calls: [{ tool_name: "search", tool_args: { q: "cats" } }],
    });
    if (answer.status === "started") throw new Error("a waited call answers results");
    const job = answer.jobs[0]!;
    expect(job.state).toBe("success");
    expect(JSON.parse(job.result!)).toEqual({ q: "cats", job: job.job_id, chat: "tools-1", attempt: 1 });
    expect(fanout.tools.calls.at(-1)).toEqual({
      tool: "search",
      args: { q: "cats" },
      jobId: job.job_id,
      chatId: "tools-1",
      attempt: 1,
    });
  });

  it("get the bot's trace passed on: the call's context names fanout's span for it", async () => {
    const trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    const answer = await fanout.client.parallel(
      "tools-trace",
      { tool_calls: [{ tool_name: "search", tool_args: { q: "dogs" } }] },
      { traceparent: `00-${trace}-00f067aa0ba902b7-01`, tracestate: "bot=1" },
    );
    if (answer.status === "started") throw new Error("a waited call answers results");
    expect(answer.trace_id).toBe(trace);
    const seen = JSON.parse(answer.jobs[0]!.result!) as { traceparent: string; tracestate: string };
    // A child of the batch's span, in the bot's trace: not the bot's own span.
    expect(seen.traceparent).toMatch(new RegExp(`^00-${trace}-[0-9a-f]{16}-01$`));
    expect(seen.traceparent).not.toContain("00f067aa0ba902b7");
    expect(seen.tracestate).toBe("bot=1");
    expect(fanout.tools.calls.at(-1)!.traceparent).toBe(seen.traceparent);
  });

  it("are offered to models with their description and parameters", async () => {
    const { tools } = await fanout.client.tools();
    expect(tools.find((t) => t.function.name === "search")!.function).toEqual({
      name: "search",
      description: "Search the web.",
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    });
  });

  it("end the job error with what they throw", async () => {
    const answer = await fanout.client.parallel("tools-2", {
      tool_calls: [{ tool_name: "send_email", tool_args: {} }],
    });
    if (answer.status === "started") throw new Error("a waited call answers results");
    expect(answer.jobs[0]).toMatchObject({ state: "error", error: "mailbox full" });
  });

  it("answer a ToolHttpError's status, which fanout retries for a read-only tool", async () => {
    const answer = await fanout.client.parallel("tools-3", {
      tool_calls: [{ tool_name: "flaky_lookup", tool_args: {} }],
    });
    if (answer.status === "started") throw new Error("a waited call answers results");
    expect(answer.jobs[0]).toMatchObject({ state: "success", result: "found on the second try" });
    expect(fanout.tools.calls.filter((c) => c.tool === "flaky_lookup").map((c) => c.attempt)).toEqual([1, 2]);
  });

  it("see their signal aborted when the job's deadline passes", async () => {
    const answer = await fanout.client.parallel("tools-4", {
      tool_calls: [{ tool_name: "slow", tool_args: {} }],
      timeout: 10,
    });
    if (answer.status === "started") throw new Error("a waited call answers results");
    expect(answer.jobs[0]!.state).toBe("timeout");
    await expect.poll(() => aborted).toEqual([answer.jobs[0]!.job_id]);
  });

  it("forget their calls on reset(), for tests that share one fanout", async () => {
    expect(fanout.tools.calls.length).toBeGreaterThan(0);
    fanout.tools.reset();
    expect(fanout.tools.calls).toEqual([]);
    await fanout.client.parallel("tools-5", { tool_calls: [{ tool_name: "search", tool_args: { q: "again" } }] });
    expect(fanout.tools.calls.map((c) => c.args)).toEqual([{ q: "again" }]);
  });

  it("refuse a request fanout did not sign", async () => {
    const before = fanout.tools.unsigned;
    const url = (await fanout.client.config()).tools.find((t) => t.name === "search")!.url;
    const res = await fetch(url, {
      method: "POST",
      body: JSON.stringify({ tool_name: "search", tool_args: { q: "x" }, job_id: "j", chat_id: "c", attempt: 1 }),
    });
    expect(res.status).toBe(401);
    expect(fanout.tools.unsigned).toBe(before + 1);
    expect(fanout.tools.calls.some((c) => c.jobId === "j")).toBe(false);
  });
});
