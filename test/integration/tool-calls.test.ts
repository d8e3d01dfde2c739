/**
 * `POST /v1/chats/{chat}/tool-calls` (SPEC §5.4): the OpenAI tool_calls of one
 * assistant message run tiered, and come back in the original order.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { agentConfig, api, configure, json, scriptLlm, toolConfig, toolServer } from "../helpers";

afterEach(() => reset());

const openai = (id: string, name: string, args: unknown) => ({
  id,
  type: "function",
  function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
});

function trackedConfig(extra: Record<string, unknown> = {}) {
  const tracked = (name: string, read_only: boolean) => ({ name, url: `${toolServer()}/tracked`, read_only, parameters: { type: "object" } });
  return { ...toolConfig(), tools: [...toolConfig().tools, tracked("tracked_read", true), tracked("tracked_write", false)], ...extra };
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
    const { max_in_flight } = (await (await fetch(`${toolServer()}/__concurrency?group=tool-calls`)).json()) as { max_in_flight: number };
    expect(max_in_flight).toBe(2);
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
    expect(body.results[1]).toMatchObject({ job_id: null, state: "error", error: { code: "subagent_limit", scope: "chat", limit: 1 } });
    expect(body.results[2]).toMatchObject({ state: "success" });
  });

  it("returns still-active calls without content after the wait, to be awaited with parallel", async () => {
    await configure(trackedConfig({ limits: { max_wait_seconds: 1 } }));
    const { body } = await post("tc4", { tool_calls: [openai("a", "hang", {}), openai("b", "echo", {})] });
    expect(body.status).toBe("waiting");
    expect(body.results[0]).toEqual({ tool_call_id: "a", name: "hang", job_id: expect.any(String), state: "running" });
    const awaited = await api("/v1/chats/tc4/parallel", { body: { action: "cancel", job_ids: [body.results[0].job_id] } });
    expect((await json(awaited)).status).toBe("cancelled");
  });

  it("refuses a body that is not a list of calls", async () => {
    await configure(trackedConfig());
    expect((await post("tc5", { tool_calls: "nope" })).status).toBe(400);
    expect((await post("tc5", [])).body.error.message).toBe("`tool_calls` must contain at least one tool call.");
  });
});

describe("tool-calls with side-effecting calls only", () => {
  it("runs them one at a time from the first, in call order", async () => {
    await configure(trackedConfig());
    const { body } = await post("tc6", {
      tool_calls: [openai("a", "tracked_write", { n: 1, ms: 100, group: "writes-only" }), openai("b", "tracked_write", { n: 2, ms: 100, group: "writes-only" })],
      timeout: 20,
    });
    expect(body.status).toBe("success");
    expect(body.results.map((r: any) => r.content)).toEqual(["tracked 1", "tracked 2"]);
    const { max_in_flight } = (await (await fetch(`${toolServer()}/__concurrency?group=writes-only`)).json()) as { max_in_flight: number };
    expect(max_in_flight).toBe(1);
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
    const other = await api("/v1/chats/tc7/tool-calls", { body: { tool_calls: [openai("a", "echo", { once: 2 })] }, headers });
    expect(other.status).toBe(409);
  });
});
