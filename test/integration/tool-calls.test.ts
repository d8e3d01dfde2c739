/**
 * `POST /v1/chats/{chat}/tool-calls` (docs/api.md#tiered-execution-and-the-tool-calls-route): the OpenAI
 * tool_calls of one
 * assistant message run tiered, and come back in the original order.
 */
import { reset, runDurableObjectAlarm } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  agentConfig,
  api,
  chatObject,
  configure,
  jobInState,
  jobRow,
  json,
  llmRequests,
  scriptLlm,
  toolConfig,
  toolServer,
} from "../helpers";

afterEach(async () => {
  vi.useRealTimers();
  await reset();
});

const openai = (id: string, name: string, args: unknown) => ({
  id,
  type: "function",
  function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
});

function trackedConfig(extra: Record<string, unknown> = {}) {
  const tracked = (name: string, read_only: boolean) => ({
    name,
    url: `${toolServer()}/tracked`,
    read_only,
    parameters: { type: "object" },
  });
  return {
    ...toolConfig(),
    tools: [...toolConfig().tools, tracked("tracked_read", true), tracked("tracked_write", false)],
    ...extra,
  };
}

const post = async (chat: string, body: unknown) => {
  const res = await api(`/v1/chats/${chat}/tool-calls`, { body });
  return { status: res.status, body: await json(res) };
};

describe("tool-calls", () => {
  it("answers every call in the original order; reads run together, writes one at a time after", async () => {
    await configure(trackedConfig());
    const { status, body } = await post("tc1", {
      tool_calls: [
        openai("a", "tracked_write", { n: 1, ms: 200, group: "tool-calls" }),
        openai("b", "tracked_read", { n: 2, ms: 200, group: "tool-calls" }),
        openai("c", "tracked_write", { n: 3, ms: 200, group: "tool-calls" }),
        openai("d", "tracked_read", { n: 4, ms: 200, group: "tool-calls" }),
      ],
      timeout: 20,
    });
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(["status", "batch_id", "results"]);
    expect(body.status).toBe("success");
    expect(body.results.map((r: any) => [r.tool_call_id, r.name, r.state, r.content])).toEqual([
      ["a", "tracked_write", "success", "tracked 1"],
      ["b", "tracked_read", "success", "tracked 2"],
      ["c", "tracked_write", "success", "tracked 3"],
      ["d", "tracked_read", "success", "tracked 4"],
    ]);
    expect(Object.keys(body.results[0])).toEqual(["tool_call_id", "name", "job_id", "state", "content"]);
    const { max_in_flight } = (await (await fetch(`${toolServer()}/__concurrency?group=tool-calls`)).json()) as {
      max_in_flight: number;
    };
    expect(max_in_flight).toBe(2);
  });

  it("starts every call of the message at once with order=parallel, from the query or limits.tool_calls_order", async () => {
    const writes = (group: string) => ({
      tool_calls: [1, 2, 3].map((n) => openai(`w${n}`, "tracked_write", { n, ms: 200, group })),
      timeout: 20,
    });
    const inFlight = async (group: string) =>
      ((await (await fetch(`${toolServer()}/__concurrency?group=${group}`)).json()) as { max_in_flight: number })
        .max_in_flight;
    await configure(trackedConfig());
    const byQuery = await api("/v1/chats/tc-order/tool-calls?order=parallel", { body: writes("order-q") });
    expect((await json(byQuery)).results.map((r: any) => r.state)).toEqual(["success", "success", "success"]);
    expect(await inFlight("order-q")).toBe(3);
    // The tenant's default, and a request that asks for the tiered order back.
    await configure(trackedConfig({ limits: { tool_calls_order: "parallel" } }));
    await post("tc-order", writes("order-l"));
    expect(await inFlight("order-l")).toBe(3);
    await api("/v1/chats/tc-order/tool-calls?order=tiered", { body: writes("order-t") });
    expect(await inFlight("order-t")).toBe(1);
    const bad = await api("/v1/chats/tc-order/tool-calls?order=random", { body: writes("order-x") });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.code).toBe("invalid_order");
  });

  it("turns unknown tools and malformed arguments into error entries; the other calls still run", async () => {
    await configure(trackedConfig());
    const { status, body } = await post("tc2", [
      openai("a", "nope", {}),
      openai("b", "echo", { ok: 1 }),
      openai("c", "echo", "{not json"),
    ]);
    expect(status).toBe(200);
    expect(body.status).toBe("partial");
    const [a, b, c] = body.results;
    expect(a).toMatchObject({ tool_call_id: "a", job_id: null, state: "error", error: { code: "unknown_tool" } });
    expect(a.content).toMatch(/^Error: tool_calls\[0\] uses unknown tool 'nope'\./);
    expect(b).toMatchObject({ state: "success", content: '{"ok":1}' });
    expect(c).toMatchObject({ job_id: null, state: "error", error: { code: "invalid_tool_calls" } });
  });

  it("a call over the subagent cap gets its own error entry with the structured details", async () => {
    await configure(agentConfig("m-tc-cap", { limits: { max_parallel_subagents: 1 } }));
    await scriptLlm("m-tc-cap", [{ content: "one" }]);
    const { body } = await post("tc3", {
      tool_calls: [
        openai("a", "spawn_task", { task: "first" }),
        openai("b", "spawn_task", { task: "second" }),
        openai("c", "echo", { still: "runs" }),
      ],
      timeout: 20,
    });
    expect(body.results[0]).toMatchObject({ state: "success", content: "one" });
    expect(body.results[1]).toMatchObject({
      job_id: null,
      state: "error",
      error: { code: "subagent_limit", scope: "chat", limit: 1 },
    });
    expect(body.results[2]).toMatchObject({ state: "success" });
  });

  it("returns still-active calls without content after the wait, to be awaited with parallel", async () => {
    await configure(trackedConfig({ limits: { max_wait_seconds: 1 } }));
    const { body } = await post("tc4", { tool_calls: [openai("a", "hang", {}), openai("b", "echo", {})] });
    expect(body.status).toBe("waiting");
    expect(body.results[0]).toEqual({ tool_call_id: "a", name: "hang", job_id: expect.any(String), state: "running" });
    const awaited = await api("/v1/chats/tc4/parallel", {
      body: { action: "cancel", job_ids: [body.results[0].job_id] },
    });
    expect((await json(awaited)).status).toBe("cancelled");
  });

  it("says of a write waiting behind the call before it that it waits for its tier, until it starts", async () => {
    await configure(trackedConfig({ limits: { max_wait_seconds: 1 } }));
    const { body } = await post("tc4w", { tool_calls: [openai("a", "hang", {}), openai("b", "tracked_write", {})] });
    const [hang, write] = body.results.map((r: any) => r.job_id);
    const seen = await json(
      await api("/v1/chats/tc4w/parallel", { body: { action: "collect", job_ids: [hang, write] } }),
    );
    expect(seen.jobs[0]).not.toHaveProperty("waiting_for");
    expect(seen.jobs[1]).toMatchObject({ state: "pending", waiting_for: "tier" });
    expect(await json(await api(`/v1/chats/tc4w/jobs/${write}`))).toMatchObject({ waiting_for: "tier", flow: null });
    await api("/v1/chats/tc4w/parallel", { body: { action: "cancel", job_ids: [hang] } });
    await runDurableObjectAlarm(chatObject("tc4w"));
    const after = await json(
      await api("/v1/chats/tc4w/parallel", { body: { action: "await", job_ids: [write], timeout: 10 } }),
    );
    expect(after.jobs[0]).toMatchObject({ state: "success" });
    expect(after.jobs[0]).not.toHaveProperty("waiting_for");
  });

  it("refuses a body that is not a list of calls", async () => {
    await configure(trackedConfig());
    expect((await post("tc5", { tool_calls: "nope" })).status).toBe(400);
    expect((await post("tc5", [])).body.error.message).toBe("`tool_calls` must contain at least one tool call.");
  });
});

describe("tool-calls when a call fails while running", () => {
  it("stops none of its siblings, in either tier", async () => {
    await configure(trackedConfig());
    const { body } = await post("tc8", {
      tool_calls: [
        openai("a", "tracked_write", { n: 1, ms: 50, fail: true }),
        openai("b", "tracked_read", { n: 2, ms: 50, fail: true }),
        openai("c", "tracked_write", { n: 3, ms: 50 }),
        openai("d", "tracked_read", { n: 4, ms: 50 }),
      ],
      timeout: 20,
    });
    expect(body.status).toBe("partial");
    expect(body.results.map((r: any) => [r.tool_call_id, r.state])).toEqual([
      ["a", "error"],
      ["b", "error"],
      ["c", "success"],
      ["d", "success"],
    ]);
    expect(body.results[0].content).toContain("tracked 1 failed");
    expect(body.results[2].content).toBe("tracked 3");
  });
});

describe("tool-calls with a subordinate", () => {
  it("runs the subordinate in the concurrent tier, beside the reads; writes wait for both", async () => {
    await configure(agentConfig("m-tc-tier", { tools: trackedConfig().tools }));
    // The child's only step is a read in the same group, so overlap with the parent's read is observable.
    await scriptLlm("m-tc-tier", [
      { tool_calls: [{ name: "tracked_read", arguments: { n: 9, ms: 600, group: "tc-sub" } }] },
      { content: "child done" },
    ]);
    const { body } = await post("tc9", {
      tool_calls: [
        openai("w", "tracked_write", { n: 1, ms: 50, group: "tc-sub" }),
        openai("s", "spawn_task", { task: "Read something." }),
        openai("r", "tracked_read", { n: 2, ms: 600, group: "tc-sub" }),
      ],
      timeout: 20,
    });
    expect(body.results.map((r: any) => [r.tool_call_id, r.state, r.content])).toEqual([
      ["w", "success", "tracked 1"],
      ["s", "success", "child done"],
      ["r", "success", "tracked 2"],
    ]);
    const { max_in_flight } = (await (await fetch(`${toolServer()}/__concurrency?group=tc-sub`)).json()) as {
      max_in_flight: number;
    };
    expect(max_in_flight).toBe(2);
    const calls = (await (await fetch(`${toolServer()}/__calls`)).json()) as { path: string; body: string }[];
    const order = calls
      .filter((c) => c.path === "/tracked" && JSON.parse(c.body).tool_args.group === "tc-sub")
      .map((c) => JSON.parse(c.body).tool_args.n);
    expect(order[2]).toBe(1);
  });

  it("answers a subordinate type the agent may not start as an error entry; the rest still run", async () => {
    await configure(agentConfig("m-tc-deny", { agents: { boss: { permission: { task: [["*", "deny"]] } } } }));
    const res = await api("/v1/chats/tc10/tool-calls?agent=boss", {
      body: [openai("s", "spawn_task", { task: "not allowed" }), openai("e", "echo", { fine: true })],
    });
    const body = await json(res);
    expect(res.status).toBe(200);
    expect(body.results[0]).toMatchObject({
      tool_call_id: "s",
      job_id: null,
      state: "error",
      error: { code: "agent_type_denied" },
    });
    expect(body.results[0].content).toContain('Sub-agent type "default" is not allowed (permission.task).');
    expect(body.results[1]).toMatchObject({ tool_call_id: "e", state: "success" });
    expect(await llmRequests("m-tc-deny")).toHaveLength(0);
  });
});

describe("tool-calls with side-effecting calls only", () => {
  it("runs them one at a time from the first, in call order", async () => {
    await configure(trackedConfig());
    const { body } = await post("tc6", {
      tool_calls: [
        openai("a", "tracked_write", { n: 1, ms: 100, group: "writes-only" }),
        openai("b", "tracked_write", { n: 2, ms: 100, group: "writes-only" }),
      ],
      timeout: 20,
    });
    expect(body.status).toBe("success");
    expect(body.results.map((r: any) => r.content)).toEqual(["tracked 1", "tracked 2"]);
    const { max_in_flight } = (await (await fetch(`${toolServer()}/__concurrency?group=writes-only`)).json()) as {
      max_in_flight: number;
    };
    expect(max_in_flight).toBe(1);
  });
});

describe("tool-calls: the next call of a sequential tier", () => {
  it("starts from the chat's alarm, never from the invocation of the call that just ended (production caps a chain of calls at 16)", async () => {
    await configure(trackedConfig());
    // An hour ahead, the chat's alarm is an hour away for the runtime: it fires only when the test runs it.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 3_600_000);
    const calls = [
      openai("a", "tracked_write", { n: 1, ms: 10, group: "chain" }),
      openai("b", "tracked_write", { n: 2, ms: 10, group: "chain" }),
    ];
    const { body } = await post("tc11", { tool_calls: calls, timeout: 1 });
    expect(body.results[0]).toMatchObject({ tool_call_id: "a", state: "success" });
    const second = body.results[1].job_id as string;
    expect((await jobRow("tc11", second))?.state).toBe("pending");
    expect(await runDurableObjectAlarm(chatObject("tc11"))).toBe(true);
    expect((await jobInState("tc11", second, "success")).result).toBe("tracked 2");
  });
});

describe("tool-calls with an Idempotency-Key", () => {
  it("a retried request gets the same jobs back and runs nothing twice; a different body is a 409", async () => {
    await configure(trackedConfig());
    const body = { tool_calls: [openai("a", "echo", { once: 1 }), openai("b", "nope", {})] };
    const headers = { "idempotency-key": "round-7" };
    const first = await json(await api("/v1/chats/tc7/tool-calls", { body, headers }));
    const again = await json(await api("/v1/chats/tc7/tool-calls", { body, headers }));
    expect(again).toEqual(first);
    const { toolCalls } = await import("../helpers");
    expect(await toolCalls(first.results[0].job_id)).toHaveLength(1);
    const other = await api("/v1/chats/tc7/tool-calls", {
      body: { tool_calls: [openai("a", "echo", { once: 2 })] },
      headers,
    });
    expect(other.status).toBe(409);
  });
});

describe("a parallel call among the tool calls", () => {
  const parallelCall = (id: string, args: Record<string, unknown>) => openai(id, "parallel", args);

  it("runs its calls in the concurrent tier and answers with the results payload; writes wait for it", async () => {
    await configure(trackedConfig());
    const { body } = await post("tp1", {
      tool_calls: [
        openai("w", "tracked_write", { n: 1, ms: 50, group: "tp1" }),
        parallelCall("p", {
          tool_calls: [
            { tool_name: "tracked_read", tool_args: { n: 2, ms: 200, group: "tp1" } },
            { tool_name: "tracked_read", tool_args: { n: 3, ms: 200, group: "tp1" } },
          ],
        }),
      ],
      timeout: 20,
    });
    expect(body.status).toBe("success");
    const [write, group] = body.results;
    expect(write).toMatchObject({ tool_call_id: "w", state: "success", content: "tracked 1" });
    expect(group).toMatchObject({ tool_call_id: "p", name: "parallel", job_id: null, state: "success" });
    expect(group.job_ids).toHaveLength(2);
    const payload = JSON.parse(group.content);
    expect(payload).toMatchObject({ status: "success", jobs: [{ result: "tracked 2" }, { result: "tracked 3" }] });
    // Both reads ran together; the write ran alone, after them.
    const { max_in_flight } = (await (await fetch(`${toolServer()}/__concurrency?group=tp1`)).json()) as {
      max_in_flight: number;
    };
    expect(max_in_flight).toBe(2);
  });

  it("wait:false answers with the started payload and does not hold the response", async () => {
    await configure(trackedConfig());
    const { body } = await post("tp2", {
      tool_calls: [
        parallelCall("p", { tool_calls: [{ tool_name: "hang", tool_args: {} }], wait: false }),
        openai("e", "echo", { x: 1 }),
      ],
      timeout: 20,
    });
    expect(body.status).toBe("success");
    expect(JSON.parse(body.results[0].content).status).toBe("started");
    expect(body.results[1]).toMatchObject({ state: "success", content: '{"x":1}' });
    // The background job is still running; it is awaited or cancelled like any job.
    const cancelled = await json(
      await api("/v1/chats/tp2/parallel", { body: { action: "cancel", job_ids: body.results[0].job_ids } }),
    );
    expect(cancelled.jobs[0].state).toBe("cancelled");
  });

  it("awaits and cancels earlier jobs by id; unknown ids refuse only that call", async () => {
    await configure(trackedConfig());
    const started = await json(
      await api("/v1/chats/tp3/parallel", {
        body: { tool_calls: [{ tool_name: "hang", tool_args: {} }], wait: false },
      }),
    );
    const hanging = started.jobs[0].job_id;
    const { body } = await post("tp3", {
      tool_calls: [
        parallelCall("c", { action: "cancel", job_ids: [hanging] }),
        parallelCall("u", { action: "await", job_ids: ["echo-doesnotexist"] }),
        openai("e", "echo", { y: 2 }),
      ],
      timeout: 20,
    });
    const [cancel, unknown, echo] = body.results;
    expect(cancel).toMatchObject({ state: "success", job_ids: [hanging] });
    expect(JSON.parse(cancel.content)).toMatchObject({
      status: "cancelled",
      jobs: [{ job_id: hanging, state: "cancelled" }],
    });
    expect(unknown).toMatchObject({
      job_id: null,
      state: "error",
      error: { code: "unknown_job_ids", job_ids: ["echo-doesnotexist"] },
    });
    expect(echo).toMatchObject({ state: "success", content: '{"y":2}' });
  });

  it("a parallel call nested in another is refused as an error entry", async () => {
    await configure(trackedConfig());
    const { body } = await post("tp4", [parallelCall("p", { tool_calls: [{ tool_name: "parallel", tool_args: {} }] })]);
    expect(body.results[0]).toMatchObject({ state: "error", error: { code: "nested_parallel" } });
  });
});
