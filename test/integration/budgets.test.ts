/**
 * Budgets (docs/api.md#budgets) in the Workers runtime: a top-level batch and everything it starts
 * spend from one budget, counted across child chats as the work happens; once reached, calls not
 * yet started end `error`, agent loops stop asking their model, and the batch says so once.
 */
import { env, reset, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { budgetName } from "../../src/core/objects/names";
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
  toolCalls,
  toolConfig,
  toolServer,
} from "../helpers";
import { inbox, received, SECRET } from "../webhook-inbox";

afterEach(() => {
  vi.useRealTimers();
  return reset();
});

const q = (budget: unknown) => `?budget=${encodeURIComponent(JSON.stringify(budget))}`;
const events = async (name: string) =>
  (await received(name)).map((r) => JSON.parse(r.body) as { type: string; data: Record<string, any> });

describe("budgets", () => {
  it("let a batch make as many calls as its budget, end the rest not made, and say so once", async () => {
    const hook = await inbox("bud-1");
    await configure(toolConfig({ webhook: { url: hook, secret: SECRET }, limits: { budget: { tool_calls: 2 } } }));
    const res = await parallel("bud-1", {
      tool_calls: [call("echo", { n: 1 }), call("echo", { n: 2 }), call("echo", { n: 3 })],
      timeout: 10,
    });
    expect(res.body.jobs.map((j: any) => j.state)).toEqual(["success", "success", "error"]);
    expect(res.body.jobs[2].error).toBe("Budget exhausted: tool_calls 2 of 2; the call was not made.");
    expect(await toolCalls(res.body.jobs[2].job_id)).toEqual([]);
    const reached = await eventually(async () => {
      const list = (await events("bud-1")).filter((e) => e.type === "batch.budget_exhausted");
      return list.length ? list : undefined;
    });
    expect(reached).toHaveLength(1);
    expect(reached[0]!.data).toMatchObject({
      batch_id: res.body.batch_id ?? expect.any(String),
      field: "tool_calls",
      used: 2,
      limit: 2,
    });
    // Another batch has a budget of its own.
    const next = await parallel("bud-1", { tool_calls: [call("echo", { n: 4 })], timeout: 10 });
    expect(next.body.jobs[0].state).toBe("success");
  });

  it("delete a batch's budget storage a minute after its last job ended, and count nothing a late answer brings", async () => {
    await configure(toolConfig({ limits: { budget: { tool_calls: 5 } } }));
    const res = await parallel("bud-gone", { tool_calls: [call("echo", { n: 1 })], timeout: 10 });
    expect(res.body.jobs[0].state).toBe("success");
    const batchId = (await json(await api(`/v1/chats/bud-gone/jobs/${res.body.jobs[0].job_id}`))).batch_id;
    const stub = env.BUDGET.getByName(budgetName("acme", "bud-gone", batchId));
    const rows = () =>
      runInDurableObject(
        stub,
        (_o, state) => state.storage.sql.exec(`SELECT name FROM sqlite_master WHERE name = 'budget'`).toArray().length,
      );
    // Closed by the chat once the batch ended: kept for late answers, then gone.
    await eventually(async () =>
      (
        await runInDurableObject(
          stub,
          (_o, state) => state.storage.sql.exec<{ state: string }>(`SELECT state FROM budget`).one().state,
        )
      ).includes("closed_at")
        ? true
        : undefined,
    );
    expect(await rows()).toBe(1);
    const scope = { root_chat: "bud-gone", batch_id: batchId, limits: { tool_calls: 5 } };
    // An answer within the grace is counted, and does not keep the budget open.
    await stub.answered("acme", scope, "bud-gone", "t1 1", { llm_tokens: 10 });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61_000);
    await runDurableObjectAlarm(stub);
    expect(await rows()).toBe(0);
    // An answer that comes after that is not counted, and makes no storage.
    await stub.answered("acme", scope, "bud-gone", "t1 2", { llm_tokens: 10 });
    expect(await rows()).toBe(0);
  });

  it("are lowered by ?budget=, never raised, and refused in tool arguments or when malformed", async () => {
    await configure(toolConfig({ limits: { budget: { tool_calls: 2 } } }));
    const lowered = await parallel(
      "bud-2",
      { tool_calls: [call("echo", { n: 1 }), call("echo", { n: 2 })], timeout: 10 },
      { query: q({ tool_calls: 1 }) },
    );
    expect(lowered.body.jobs.map((j: any) => j.state)).toEqual(["success", "error"]);
    const raised = await parallel(
      "bud-2",
      { tool_calls: [call("echo", { n: 1 }), call("echo", { n: 2 }), call("echo", { n: 3 })], timeout: 10 },
      { query: q({ tool_calls: 50 }) },
    );
    expect(raised.body.jobs.map((j: any) => j.state)).toEqual(["success", "success", "error"]);
    const inArgs = await parallel("bud-2", { tool_calls: [call("echo")], budget: { tool_calls: 99 } });
    expect(inArgs.status).toBe(400);
    expect(inArgs.body.error.code).toBe("option_not_allowed_in_tool_args");
    for (const bad of [
      "%7Bnope",
      encodeURIComponent(JSON.stringify({ tool_calls: -1 })),
      encodeURIComponent(JSON.stringify({ dollars: 1 })),
    ]) {
      const res = await parallel("bud-2", { tool_calls: [call("echo")] }, { query: `?budget=${bad}` });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_budget");
    }
    // A tenant with no budget configured may still set one per request.
    await configure(toolConfig());
    const own = await parallel(
      "bud-2b",
      { tool_calls: [call("echo", { n: 1 }), call("echo", { n: 2 })], timeout: 10 },
      { query: q({ tool_calls: 1 }) },
    );
    expect(own.body.jobs.map((j: any) => j.state)).toEqual(["success", "error"]);
  });

  it("stop a subagent's loop once its batch's budget is reached: no further model request, its last text and why", async () => {
    await configure(agentConfig("m-bud", { limits: { budget: { llm_calls: 1 } } }));
    await scriptLlm("m-bud", [
      { content: "Looking it up.", tool_calls: [{ name: "echo", arguments: { q: 1 } }] },
      { content: "never asked" },
    ]);
    const res = await parallel("bud-3", {
      tool_calls: [call("call_subordinate", { message: "Find it.", reset: true })],
      timeout: 30,
    });
    const job = res.body.jobs[0];
    expect(job.state).toBe("error");
    expect(job.error).toBe("Last text: Looking it up.\nBudget exhausted: llm_calls 1 of 1; the call was not made.");
    expect(await llmRequests("m-bud")).toHaveLength(1);
    // The call its one request asked for ran: the budget was reached only when the loop asked again.
    const child = await json(await api(`/v1/chats/${job.context_id}/job-records`));
    expect(child.records[0]).toMatchObject({ tool_name: "echo", state: "success" });
  });

  it("end calls of the batch still held at an earlier gate once the budget is reached", async () => {
    await configure(toolConfig({ approvals: [{ tools: ["other"] }], limits: { budget: { tool_calls: 1 } } }));
    const res = await parallel("bud-4", {
      tool_calls: [call("echo", { n: 1 }), call("other", { n: 2 }), call("echo", { n: 3 })],
      wait: false,
    });
    // The second echo finds no call left: the budget is reached, and the call held for a person ends too.
    const [ran, held] = res.body.jobs;
    const ended = await eventually(async () => {
      const r = await json(await api(`/v1/chats/bud-4/jobs/${held.job_id}`));
      return r.state === "error" ? r : undefined;
    });
    expect(ended.error).toBe("Budget exhausted: tool_calls 1 of 1; the call was not made.");
    await eventually(async () =>
      (await json(await api(`/v1/chats/bud-4/jobs/${ran.job_id}`))).state === "success" ? true : undefined,
    );
  });

  it("count subagents as they start, and dollars as the model requests answer", async () => {
    await configure(agentConfig("m-bud-sub", { limits: { budget: { subagents: 2 } } }));
    await scriptLlm("m-bud-sub", [{ content: "one" }, { content: "two" }]);
    const sub = (m: string) => call("call_subordinate", { message: m, reset: true });
    // Exactly its budget: nothing is stopped.
    const two = await parallel("bud-7", { tool_calls: [sub("a"), sub("b")], timeout: 30 });
    expect(two.body.jobs.map((j: any) => j.state)).toEqual(["success", "success"]);
    // One more than it: the third is not started, and the budget is reached for the whole batch.
    await scriptLlm("m-bud-sub", [{ content: "x" }, { content: "y" }, { content: "z" }]);
    const three = await parallel("bud-7b", { tool_calls: [sub("a"), sub("b"), sub("c")], timeout: 30 });
    expect(three.body.jobs[2]).toMatchObject({
      state: "error",
      error: "Budget exhausted: subagents 2 of 2; the call was not made.",
    });

    // Each request costs (10 × 1000 + 5 × 2000) / 1e6 = $0.02: a $0.03 budget lets the second go, then stops the loop.
    await configure(
      agentConfig("m-bud-usd", {
        llm: {
          base_url: `${toolServer()}/llm/v1`,
          model: "m-bud-usd",
          api_key: "sk-test",
          prices: { input_per_million: 1000, output_per_million: 2000 },
        },
      }),
    );
    await scriptLlm(
      "m-bud-usd",
      Array.from({ length: 5 }, () => ({ content: "more", tool_calls: [{ name: "echo", arguments: {} }] })),
    );
    const priced = await parallel(
      "bud-8",
      { tool_calls: [call("call_subordinate", { message: "spend", reset: true })], timeout: 30 },
      { query: q({ cost_usd: 0.03 }) },
    );
    expect(priced.body.jobs[0].error).toBe(
      "Last text: more\nBudget exhausted: cost_usd 0.04 of 0.03; the call was not made.",
    );
    expect(await llmRequests("m-bud-usd")).toHaveLength(2);
  });

  it("count a model request once when it waited for room under a flow rule on `llm`", async () => {
    // One request at a time: two of the three subagents' requests wait, and ask the budget again when room comes.
    await configure(
      agentConfig("m-bud-room", {
        flow: [{ name: "model", tools: ["llm"], concurrency: 1 }],
        limits: { budget: { llm_calls: 3 } },
      }),
    );
    await scriptLlm("m-bud-room", [
      { content: "one", delay_ms: 300 },
      { content: "two", delay_ms: 300 },
      { content: "three", delay_ms: 300 },
    ]);
    const sub = (message: string) => call("call_subordinate", { message, reset: true });
    const res = await parallel("bud-room", { tool_calls: [sub("a"), sub("b"), sub("c")], timeout: 30 });
    expect(
      res.body.jobs.map((j: any) => j.state),
      JSON.stringify(res.body.jobs.map((j: any) => j.error)),
    ).toEqual(["success", "success", "success"]);
    expect(await llmRequests("m-bud-room")).toHaveLength(3);
  });

  /** 10 subagents at once, each asking for one more short wait with every reply: only the budget stops them. */
  async function fanOut(chat: string, model: string, budget: Record<string, number>) {
    await configure(
      agentConfig(model, { limits: { budget, max_calls: 10, max_parallel_subagents: 10, max_subagents_per_tree: 20 } }),
    );
    await scriptLlm(
      model,
      Array.from({ length: 200 }, () => ({ tool_calls: [{ name: "wait", arguments: { seconds: 0.05 } }] })),
    );
    const subs = Array.from({ length: 10 }, (_, i) => call("spawn_task", { task: `part ${i}`, wait: true }));
    const res = await parallel(chat, { tool_calls: subs, timeout: 60 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { jobs: res.body.jobs as { state: string; error: string }[], made: (await llmRequests(model)).length };
  }

  it("hold a fan-out of 10 subagents to a budget of model requests exactly: each is counted as it is let go", async () => {
    const { jobs, made } = await fanOut("bud-5", "m-fan", { llm_calls: 5 });
    expect(
      jobs.every(
        (j) => j.state === "error" && /Budget exhausted: llm_calls 5 of 5; the call was not made\.$/.test(j.error),
      ),
    ).toBe(true);
    console.log(`fan-out of 10 subagents, llm_calls budget 5: ${made} model requests made`);
    expect(made).toBe(5);
  });

  it("say how many model requests were in flight when a token budget was reached, and count all they spent in the batch's usage", async () => {
    const hook = await inbox("bud-9");
    const model = "m-fan-flight";
    const wide = { max_calls: 32, max_parallel_subagents: 28, max_subagents_per_tree: 28 };
    await configure(
      agentConfig(model, { webhook: { url: hook, secret: SECRET }, limits: { budget: { llm_tokens: 40 }, ...wide } }),
    );
    // 28 subagents ask at once and every answer (15 tokens) takes 1.5 s: the third reaches the budget with
    // the others still out.
    await scriptLlm(
      model,
      Array.from({ length: 28 }, () => ({
        delay_ms: 1500,
        tool_calls: [{ name: "wait", arguments: { seconds: 0.05 } }],
      })),
    );
    const subs = Array.from({ length: 28 }, (_, i) => call("spawn_task", { task: `part ${i}`, wait: true }));
    const res = await parallel("bud-9", { tool_calls: subs, timeout: 60 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const made = (await llmRequests(model)).length;
    const sent = await eventually(async () => {
      const list = await events("bud-9");
      return list.some((e) => e.type === "batch.finished") ? list : undefined;
    });
    const reached = sent.filter((e) => e.type === "batch.budget_exhausted");
    expect(reached).toHaveLength(1);
    const { used, in_flight } = reached[0]!.data;
    console.log(
      `28 subagents, llm_tokens budget 40: reached at ${used} with ${in_flight} requests in flight; ${made} requests made`,
    );
    expect(reached[0]!.data).toMatchObject({ field: "llm_tokens", limit: 40 });
    // What was spent when it was reached, as the error texts say it, and the requests still out then.
    expect(
      res.body.jobs.every((j: any) =>
        j.error.endsWith(`Budget exhausted: llm_tokens ${used} of 40; the call was not made.`),
      ),
    ).toBe(true);
    expect(in_flight).toBeGreaterThan(0);
    expect(used / 15 + in_flight).toBe(made);
    // Every token the requests spent, those in flight included, is in the batch's usage.
    const finished = sent.find((e) => e.type === "batch.finished")!;
    expect(finished.data.usage).toMatchObject({
      llm_calls: made,
      prompt_tokens: made * 10,
      completion_tokens: made * 5,
    });
    const records = await Promise.all(
      res.body.jobs.map(async (j: any) => (await json(await api(`/v1/chats/bud-9/jobs/${j.job_id}`))).usage),
    );
    expect(records.reduce((n: number, u: any) => n + u.prompt_tokens + u.completion_tokens, 0)).toBe(
      used + in_flight * 15,
    );
  });

  it("let a fan-out of 10 subagents overrun a token budget only by the requests in flight when it was reached", async () => {
    // Each request is 15 tokens: 40 are reached by the third answer.
    const { jobs, made } = await fanOut("bud-6", "m-fan-tokens", { llm_tokens: 40 });
    expect(
      jobs.every(
        (j) => j.state === "error" && /Budget exhausted: llm_tokens \d+ of 40; the call was not made\.$/.test(j.error),
      ),
    ).toBe(true);
    console.log(
      `fan-out of 10 subagents, llm_tokens budget 40 (15 a request): ${made} model requests made, ${made * 15} tokens (overrun ${made * 15 - 40})`,
    );
    // At most one request per loop was in flight when it was reached: 10 × 15 tokens, whatever came before.
    expect(made).toBeLessThanOrEqual(Math.ceil(40 / 15) + 10);
  });
});
