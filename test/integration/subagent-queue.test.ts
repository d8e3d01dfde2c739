/**
 * `limits.on_subagent_limit: "queue"` (docs/api.md#caps-permissions-and-depth): subordinates over the cap
 * wait `pending` with a `queue_position`, start in order as slots free, and
 * their deadline starts when they start.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import {
  agentConfig,
  api,
  call,
  configure,
  eventually,
  jobRow,
  json,
  llmRequests,
  parallel,
  scriptLlm,
} from "../helpers";

afterEach(() => reset());

const sub = (message: string) => call("call_subordinate", { message, reset: true });
const queueing = (model: string, limits: Record<string, unknown> = {}) =>
  agentConfig(model, {
    limits: { max_parallel_subagents: 1, on_subagent_limit: "queue", max_queued_subagents: 5, ...limits },
  });

describe("queued subagents", () => {
  it("wait with their queue position, start in order as slots free, and their deadline starts then", async () => {
    await configure(queueing("m-q1"));
    await scriptLlm("m-q1", [
      { content: "one", delay_ms: 200 },
      { content: "two", delay_ms: 200 },
      { content: "three", delay_ms: 200 },
    ]);
    const started = await parallel("q1", { tool_calls: [sub("a"), sub("b"), sub("c")], wait: false });
    expect(started.status).toBe(200);
    const jobs = started.body.jobs;
    expect(jobs.map((j: any) => j.queue_position)).toEqual([undefined, 1, 2]);
    expect(jobs.slice(1).every((j: any) => j.state === "pending")).toBe(true);
    expect(Object.keys(jobs[1]).slice(0, 6)).toEqual([
      "job_id",
      "tool_name",
      "state",
      "duration_seconds",
      "queue_position",
      "waiting_for",
    ]);
    expect(jobs.map((j: any) => j.waiting_for)).toEqual([undefined, "subagent_slot", "subagent_slot"]);

    const ids = jobs.map((j: any) => j.job_id);
    const done = await parallel("q1", { action: "await", job_ids: ids, timeout: 30 });
    expect(done.body.jobs.map((j: any) => j.result)).toEqual(["one", "two", "three"]);
    const [a, b, c] = await Promise.all(ids.map((id: string) => jobRow("q1", id)));
    expect(b!.started_at).toBeGreaterThanOrEqual(a!.completed_at);
    expect(c!.started_at).toBeGreaterThanOrEqual(b!.completed_at);
    expect(b!.deadline_at - b!.timeout_seconds * 1000).toBeGreaterThanOrEqual(a!.completed_at);
  });

  it("refuses a batch that would overflow max_queued_subagents, and starts nothing", async () => {
    await configure(queueing("m-q2", { max_queued_subagents: 1 }));
    const res = await parallel("q2", { tool_calls: [sub("a"), sub("b"), sub("c")] });
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: "subagent_limit", scope: "queue", queued: 0, requested: 2, limit: 1 });
    expect((await api("/v1/chats/q2")).status).toBe(404);
  });

  it("a cancelled queued job never starts", async () => {
    await configure(queueing("m-q3"));
    await scriptLlm("m-q3", [{ content: "first", delay_ms: 400 }, { content: "must not be asked" }]);
    const started = await parallel("q3", { tool_calls: [sub("a"), sub("b")], wait: false });
    const [a, b] = started.body.jobs.map((j: any) => j.job_id);
    const cancelled = await parallel("q3", { action: "cancel", job_ids: [b] });
    expect(cancelled.body.jobs[0].state).toBe("cancelled");
    const first = await parallel("q3", { action: "await", job_ids: [a], timeout: 30 });
    expect(first.body.jobs[0].result).toBe("first");
    await new Promise((r) => setTimeout(r, 300));
    expect(await llmRequests("m-q3")).toHaveLength(1);
  });

  it("tool-calls queue a subordinate call over the cap instead of refusing it", async () => {
    await configure(queueing("m-q4"));
    await scriptLlm("m-q4", [{ content: "x" }, { content: "y" }]);
    const res = await api("/v1/chats/q4/tool-calls", {
      body: {
        tool_calls: [
          { id: "a", type: "function", function: { name: "spawn_task", arguments: '{"task":"x"}' } },
          { id: "b", type: "function", function: { name: "spawn_task", arguments: '{"task":"y"}' } },
        ],
        timeout: 30,
      },
    });
    const body = await json(res);
    expect(body.results.map((r: any) => [r.state, r.content])).toEqual([
      ["success", "x"],
      ["success", "y"],
    ]);
  });

  it("a child chat never queues on the tree cap: the call is refused and its model carries on", async () => {
    await configure(queueing("m-q5", { max_subagents_per_tree: 1 }));
    await scriptLlm("m-q5", [
      { tool_calls: [{ name: "spawn_task", arguments: { task: "deeper", wait: true } }] },
      { content: "carried on" },
    ]);
    const { body } = await parallel("q5", { tool_calls: [sub("Spawn one more.")], timeout: 30 });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "carried on" });
    const requests = await eventually(async () => {
      const r = await llmRequests("m-q5");
      return r.length === 2 ? r : undefined;
    });
    const tool = requests[1]!.messages.find((m: any) => m.role === "tool");
    expect(tool.content).toBe(
      "Error: Subagent limit reached (1 running + 1 requested > 1); wait for running subagents or split the batch.",
    );
  });

  it("the top-level chat queues on the tree cap; a release from deep in the tree starts the next", async () => {
    const config = agentConfig("m-q6", {
      limits: { max_parallel_subagents: 5, max_subagents_per_tree: 2, on_subagent_limit: "queue" },
      agents: { other: { model: "m-q6-b" } },
    });
    await configure(config);
    await scriptLlm("m-q6", [
      { tool_calls: [{ name: "spawn_task", arguments: { task: "grandchild", wait: true } }] },
      { content: "grandchild done", delay_ms: 800 },
      { content: "child done", delay_ms: 5000 },
    ]);
    await scriptLlm("m-q6-b", [{ content: "queued one done" }]);
    const first = await parallel("q6", { tool_calls: [sub("a")], wait: false });
    // The child and its grandchild now hold both of the tree's slots.
    await eventually(async () => (await llmRequests("m-q6")).length === 2);
    const queued = await parallel("q6", {
      tool_calls: [call("call_subordinate", { message: "b", reset: true, profile: "other" })],
      wait: false,
    });
    expect(queued.body.jobs[0]).toMatchObject({ state: "pending", queue_position: 1 });
    // It starts when the grandchild's slot comes back, long before the child itself ends.
    const done = await parallel("q6", { action: "await", job_ids: [queued.body.jobs[0].job_id], timeout: 3 });
    expect(done.body.jobs[0]).toMatchObject({ state: "success", result: "queued one done" });
    await parallel("q6", { action: "cancel", job_ids: [first.body.jobs[0].job_id] });
  });
});
