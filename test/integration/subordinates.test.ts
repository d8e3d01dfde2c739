/**
 * Subordinate agents (docs/api.md#subordinates): child chats running a durable agent loop
 * against a scripted OpenAI-compatible provider (a real local HTTP server).
 */
import { abortAllDurableObjects, env, reset, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { ChatStore } from "../../durable-objects/chat/storage/chat-store";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  agentConfig,
  api,
  call,
  chatObject,
  configure,
  eventually,
  json,
  jobRow,
  llmRequests,
  parallel,
  scriptLlm,
  toolCalls,
  toolConfig,
  jobInState,
} from "../helpers";

afterEach(async () => {
  vi.useRealTimers();
  await reset();
});

// Awaits here wait 20 s at most, under vitest's 30 s: a stuck job fails its assertion with its state
// instead of a bare test timeout.
const sub = (message: string, more: Record<string, unknown> = {}) =>
  call("call_subordinate", { message, reset: true, ...more });

/** Waits until the child chat has a job of `tool` (in `state`, when given) and returns its id. */
const childJob = (contextId: string, tool: string, state?: string) =>
  eventually(() =>
    runInDurableObject(chatObject(contextId), (_i, s) => {
      const row = s.storage.sql.exec("SELECT job_id, state FROM jobs WHERE tool_name = ?", tool).toArray()[0];
      return row && (!state || row.state === state) ? String(row.job_id) : undefined;
    }).catch(() => undefined),
  );

/** The chat's own tables: none once it is deleted. */
const tables = (chat: string) =>
  runInDurableObject(chatObject(chat), (_i, s) =>
    s.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf%'").toArray(),
  );

describe("a subordinate job", () => {
  it("runs in a child chat and returns the model's final text", async () => {
    await configure(agentConfig("m-basic"));
    await scriptLlm("m-basic", [{ content: "The answer is 42." }]);
    const { body } = await parallel("p1", { tool_calls: [sub("Find the answer.")], timeout: 20 });
    expect(body.status).toBe("success");
    const job = body.jobs[0];
    expect(job).toMatchObject({ tool_name: "call_subordinate", state: "success", result: "The answer is 42." });
    expect(job.job_id).toMatch(/^callsubordin-/);
    expect(job.context_id).toMatch(/^sub-[A-Za-z0-9_-]{16}$/);
    expect(job.usage).toMatchObject({ llm_calls: 1, prompt_tokens: 10, completion_tokens: 5 });

    const child = await json(await api(`/v1/chats/${job.context_id}`));
    expect(child).toMatchObject({ chat_id: job.context_id, parent_chat_id: "p1", level: 1, name: "Find the answer." });
    const parent = await json(await api("/v1/chats/p1"));
    expect(parent.children).toEqual([
      { chat_id: job.context_id, name: "Find the answer.", level: 1, running_jobs: 0, waiting_jobs: 0 },
    ]);
    const [request] = await llmRequests("m-basic");
    expect(request!.messages[0].role).toBe("system");
    expect(request!.messages[1]).toEqual({ role: "user", content: "Find the answer." });
  });

  it("lets the child's model call tools, each a durable job, and feeds the results back", async () => {
    await configure(agentConfig("m-tools"));
    await scriptLlm("m-tools", [
      { tool_calls: [{ name: "echo", arguments: { q: "weather" } }] },
      { content: "Done: sunny." },
    ]);
    const { body } = await parallel("p1", { tool_calls: [sub("Check the weather.")], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "Done: sunny." });
    const requests = await llmRequests("m-tools");
    expect(requests).toHaveLength(2);
    const toolMessage = requests[1]!.messages.find((m: any) => m.role === "tool");
    expect(toolMessage.content).toBe('{"q":"weather"}');
    expect(requests[0]!.tools!.map((t: any) => t.function.name)).toEqual(
      expect.arrayContaining(["echo", "wait", "spawn_task", "call_subordinate"]),
    );
    const childJobs = await json(await api(`/v1/chats/${body.jobs[0].context_id}/log`));
    expect(childJobs.rows.map((r: any) => r.heading)).toEqual(["Using tool 'echo'"]);
  });

  it("fails with a clear error when no LLM is configured", async () => {
    await configure(toolConfig());
    const { body } = await parallel("p1", { tool_calls: [sub("Anything.")], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({
      state: "error",
      error: "No LLM provider configured: set llm.base_url, llm.model and llm.api_key with PUT /v1/config.",
    });
  });

  it("ends error with the provider's message on a non-retryable failure, never success", async () => {
    await configure(agentConfig("m-fail"));
    await scriptLlm("m-fail", [{ status: 400 }]);
    const { body } = await parallel("p1", { tool_calls: [sub("Anything.")], timeout: 20 });
    expect(body.jobs[0].state).toBe("error");
    expect(body.jobs[0].error).toContain("LLM provider error");
  });

  it("retries a provider 5xx and then succeeds", async () => {
    await configure(agentConfig("m-retry"));
    await scriptLlm("m-retry", [{ status: 503 }, { content: "recovered" }]);
    const { body } = await parallel("p1", { tool_calls: [sub("Anything.")], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "recovered" });
    expect(await llmRequests("m-retry")).toHaveLength(2);
  });
});

describe("subagent cap", () => {
  it("refuses a batch over max_parallel_subagents whole, with the structured body", async () => {
    await configure(agentConfig("m-cap"));
    const res = await parallel("c1", { tool_calls: Array.from({ length: 6 }, (_, i) => sub(`task ${i}`)) });
    expect(res.status).toBe(429);
    expect(res.body.error).toEqual({
      code: "subagent_limit",
      message: "Subagent limit reached (0 running + 6 requested > 5); wait for running subagents or split the batch.",
      scope: "chat",
      running: 0,
      limit: 5,
      requested: 6,
      running_job_ids: [],
    });
    expect((await api("/v1/chats/c1")).status).toBe(404);
  });

  it("lets exactly one of two concurrent requests of 3 pass a cap of 5", async () => {
    await configure(agentConfig("m-race", { limits: { max_parallel_subagents: 5 } }));
    await scriptLlm(
      "m-race",
      Array.from({ length: 6 }, () => ({ content: "ok", delay_ms: 1500 })),
    );
    const batch = () => parallel("c2", { tool_calls: [sub("a"), sub("b"), sub("c")], wait: false });
    const [a, b] = await Promise.all([batch(), batch()]);
    expect([a.status, b.status].sort()).toEqual([200, 429]);
    const refused = a.status === 429 ? a : b;
    expect(refused.body.error).toMatchObject({ running: 3, requested: 3, limit: 5 });
  });

  it("frees the slot when the subordinate ends: success, error, cancel", async () => {
    await configure(agentConfig("m-slot", { limits: { max_parallel_subagents: 1 } }));
    await scriptLlm("m-slot", [
      { content: "first" },
      { status: 400 },
      { content: "slow", delay_ms: 3000 },
      { content: "last" },
    ]);
    const first = await parallel("c3", { tool_calls: [sub("one")], timeout: 20 });
    expect(first.body.jobs[0].state).toBe("success");
    const second = await parallel("c3", { tool_calls: [sub("two")], timeout: 20 });
    expect(second.body.jobs[0].state).toBe("error");
    const third = await parallel("c3", { tool_calls: [sub("three")], wait: false });
    const blocked = await parallel("c3", { tool_calls: [sub("four")], wait: false });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.running_job_ids).toEqual([third.body.jobs[0].job_id]);
    await parallel("c3", { action: "cancel", job_ids: [third.body.jobs[0].job_id] });
    const fourth = await parallel("c3", { tool_calls: [sub("four")], wait: false });
    expect(fourth.status).toBe(200);
  });
});

describe("subagent cap and deadlines", () => {
  it("frees the slot when the subordinate times out", async () => {
    await configure(agentConfig("m-slot-timeout", { limits: { max_parallel_subagents: 1 } }));
    await scriptLlm("m-slot-timeout", [{ content: "never in time", delay_ms: 5000 }, { content: "next" }]);
    const slow = await parallel("c4", { tool_calls: [sub("slow")], job_timeout: 60, wait: false });
    const slowId = slow.body.jobs[0].job_id;
    expect((await parallel("c4", { tool_calls: [sub("blocked")], wait: false })).status).toBe(429);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61_000);
    expect(await runDurableObjectAlarm(chatObject("c4"))).toBe(true);
    vi.useRealTimers();
    expect((await jobRow("c4", slowId))?.state).toBe("timeout");
    expect((await parallel("c4", { tool_calls: [sub("next")], wait: false })).status).toBe(200);
  });
});

describe("permission.task and depth", () => {
  const bossConfig = () =>
    agentConfig("m-perm", {
      agents: {
        boss: {
          permission: {
            task: [
              ["*", "deny"],
              ["researcher", "allow"],
            ],
          },
        },
        researcher: { description: "Finds facts" },
        open: {},
      },
    });

  it("denies a type the calling agent may not start, on every call shape, before anything starts", async () => {
    await configure(bossConfig());
    const q = { query: "?agent=boss" };
    const noAgent = await parallel("d1", { tool_calls: [call("spawn_task", { task: "x" })] }, q);
    expect(noAgent.status).toBe(403);
    expect(noAgent.body.error).toMatchObject({
      code: "agent_type_denied",
      message: 'Sub-agent type "default" is not allowed (permission.task).',
    });
    const viaProfile = await parallel("d1", { tool_calls: [sub("x", { profile: "open" })] }, q);
    expect(viaProfile.body.error.message).toBe('Sub-agent type "open" is not allowed (permission.task).');
    expect((await api("/v1/chats/d1")).status).toBe(404);
  });

  it("allows the types its rules allow, and everything when there are no rules", async () => {
    await configure(bossConfig());
    await scriptLlm("m-perm", [{ content: "ok" }, { content: "ok" }]);
    const allowed = await parallel(
      "d2",
      { tool_calls: [call("spawn_task", { task: "x", agent: "researcher" })], wait: false },
      { query: "?agent=boss" },
    );
    expect(allowed.status).toBe(200);
    const open = await parallel(
      "d3",
      { tool_calls: [sub("x", { profile: "researcher" })], wait: false },
      { query: "?agent=open" },
    );
    expect(open.status).toBe(200);
  });

  it("refuses an unknown profile and lists the available ones", async () => {
    await configure(bossConfig());
    const res = await parallel("d1", { tool_calls: [sub("x", { profile: "ghost" })] });
    expect(res.body.error).toEqual({
      code: "unknown_profile",
      message: "Agent profile 'ghost' not found. Use one of the available profiles: default, boss, researcher, open.",
    });
  });

  it("refuses subordinates beyond max_depth", async () => {
    await configure(agentConfig("m-depth", { limits: { max_depth: 0 } }));
    const res = await parallel("d1", { tool_calls: [sub("x")] });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: "max_depth",
      message: "A0 cannot start subordinates: limits.max_depth is 0.",
    });
  });
});

describe("continuation", () => {
  it("reset:false with a context_id continues the same child, also after it failed", async () => {
    await configure(agentConfig("m-cont"));
    await scriptLlm("m-cont", [{ status: 400 }, { content: "second try worked" }]);
    const first = await parallel("k1", { tool_calls: [sub("Do it.")], timeout: 20 });
    expect(first.body.jobs[0].state).toBe("error");
    const contextId = first.body.jobs[0].context_id;
    const again = await parallel("k1", {
      tool_calls: [call("call_subordinate", { message: "Try again.", context_id: contextId })],
      timeout: 20,
    });
    expect(again.body.jobs[0]).toMatchObject({ state: "success", result: "second try worked", context_id: contextId });
    const second = (await llmRequests("m-cont"))[1]!;
    expect(second.messages.filter((m: any) => m.role === "user").map((m: any) => m.content)).toEqual([
      "Do it.",
      "Try again.",
    ]);
  });

  it("fresh siblings get distinct children", async () => {
    await configure(agentConfig("m-sib"));
    await scriptLlm("m-sib", [{ content: "a" }, { content: "b" }]);
    const { body } = await parallel("k2", {
      tool_calls: [sub("one"), call("spawn_task", { task: "two" })],
      timeout: 20,
    });
    expect(body.jobs[0].context_id).not.toBe(body.jobs[1].context_id);
  });

  it("reports argument errors of call_subordinate with Agent Zero's texts", async () => {
    await configure(agentConfig("m-args"));
    const missing = await parallel("k3", { tool_calls: [call("call_subordinate", {})] });
    expect(missing.body.error).toEqual({
      code: "invalid_subordinate_call",
      message: "call_subordinate requires `tool_args.message`.",
    });
    const both = await parallel("k3", {
      tool_calls: [call("call_subordinate", { message: "x", context_id: "sub-1", reset: true })],
    });
    expect(both.body.error.message).toBe(
      "`context_id` continues an existing subordinate and requires reset=false. Omit `context_id` to create a fresh subordinate.",
    );
    const unknown = await parallel("k3", {
      tool_calls: [call("call_subordinate", { message: "x", context_id: "sub-nope" })],
    });
    expect(unknown.body.error.message).toBe("Subordinate context 'sub-nope' was not found under A0.");
  });
});

describe("durability", () => {
  it("a child evicted between steps resumes and never repeats a finished tool call", async () => {
    await configure(agentConfig("m-evict"));
    await scriptLlm("m-evict", [
      { tool_calls: [{ name: "echo", arguments: { once: true } }] },
      { content: "lost with the instance", delay_ms: 3000 },
    ]);
    const started = await parallel("e1", { tool_calls: [sub("Echo, then report.")], wait: false });
    const jobId = started.body.jobs[0].job_id;
    const contextId = started.body.jobs[0].context_id;
    // the tool ran; the second step is in flight
    await eventually(async () => (await llmRequests("m-evict")).length === 2);
    const echoJob = await runInDurableObject(chatObject(contextId), (_i, s) =>
      String(s.storage.sql.exec("SELECT job_id FROM jobs WHERE tool_name = 'echo'").one().job_id),
    );
    await abortAllDurableObjects(); // the child dies mid-step
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 151_000); // past the agent timer's safety margin
    expect(await runDurableObjectAlarm(chatObject(contextId))).toBe(true);
    vi.useRealTimers();
    const { body } = await parallel("e1", { action: "await", job_ids: [jobId], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "(script finished)" });
    expect(await toolCalls(echoJob)).toHaveLength(1);
    expect(await llmRequests("m-evict")).toHaveLength(3);
  });

  it("records the hand-back in the parent chat", async () => {
    await configure(agentConfig("m-event"));
    await scriptLlm("m-event", [{ content: "handed back" }]);
    const { body } = await parallel("h1", { tool_calls: [sub("x")], timeout: 20 });
    const events = await runInDurableObject(chatObject("h1"), (_i, s) =>
      s.storage.sql
        .exec("SELECT type, data FROM events ORDER BY seq")
        .toArray()
        .map((r) => ({ type: r.type, data: JSON.parse(r.data as string) })),
    );
    const handBack = events.filter((e) => String(e.type).startsWith("subagent."));
    expect(handBack.map((e) => e.type)).toEqual(["subagent.started", "subagent.finish"]);
    expect(handBack[1]!.data).toMatchObject({
      job_id: body.jobs[0].job_id,
      context_id: body.jobs[0].context_id,
      agent: "default",
      status: "success",
      result: "handed back",
    });
    expect((await jobRow("h1", body.jobs[0].job_id))?.kind).toBe("subordinate");
  });
});

describe("hand-back of a failed subordinate", () => {
  it("records subagent.finish with status error and the error text", async () => {
    await configure(agentConfig("m-event-err"));
    await scriptLlm("m-event-err", [{ status: 400 }]);
    const { body } = await parallel("h1e", { tool_calls: [sub("x")], timeout: 20 });
    expect(body.jobs[0].state).toBe("error");
    const finish = await runInDurableObject(chatObject("h1e"), (_i, s) =>
      s.storage.sql
        .exec("SELECT data FROM events WHERE type = 'subagent.finish'")
        .toArray()
        .map((r) => JSON.parse(r.data as string)),
    );
    expect(finish).toHaveLength(1);
    expect(finish[0]).toMatchObject({
      job_id: body.jobs[0].job_id,
      context_id: body.jobs[0].context_id,
      agent: "default",
      status: "error",
    });
    expect(finish[0].error).toContain("LLM provider error");
    expect(finish[0].result).toBeUndefined();
  });
});

describe("profiles inside the child", () => {
  it("a profile's system_prompt, tools and model shape the child's loop", async () => {
    await configure(
      agentConfig("m-prof-base", {
        agents: { researcher: { system_prompt: "You are a careful researcher.", tools: ["echo"], model: "m-prof-r" } },
      }),
    );
    await scriptLlm("m-prof-r", [{ content: "researched" }]);
    const { body } = await parallel("pr1", {
      tool_calls: [sub("Look it up.", { profile: "researcher" })],
      timeout: 20,
    });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "researched" });
    expect(await llmRequests("m-prof-base")).toHaveLength(0);
    const [request] = await llmRequests("m-prof-r");
    expect(request!.messages[0]).toMatchObject({ role: "system" });
    expect(request!.messages[0].content).toContain("You are a careful researcher.");
    const names = request!.tools!.map((t: any) => t.function.name);
    expect(names).toContain("echo");
    expect(names).not.toContain("text");
    expect(names).not.toContain("sleep");
  });

  it("a child whose own profile denies a type is refused inside its loop, and carries on", async () => {
    await configure(agentConfig("m-prof-deny", { agents: { solo: { permission: { task: [["*", "deny"]] } } } }));
    await scriptLlm("m-prof-deny", [
      { tool_calls: [{ name: "spawn_task", arguments: { task: "Try anyway." } }] },
      { content: "did it myself" },
    ]);
    const { body } = await parallel("pr2", { tool_calls: [sub("Work alone.", { profile: "solo" })], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "did it myself" });
    const [first, second] = await llmRequests("m-prof-deny");
    expect((first!.tools ?? []).map((t: any) => t.function.name)).not.toContain("spawn_task");
    expect(second!.messages.find((m: any) => m.role === "tool").content).toContain(
      'Sub-agent type "default" is not allowed (permission.task).',
    );
    const child = await json(await api(`/v1/chats/${body.jobs[0].context_id}`));
    expect(child.children).toEqual([]);
  });
});

describe("tiered execution in the agent loop", () => {
  it("runs read-only calls together first, then side-effecting ones one at a time, answering in call order", async () => {
    const base = toolConfig();
    const tracked = (name: string, read_only: boolean) => ({
      name,
      url: `${(base.builtins as any).http_request.allowed_origins[0]}/tracked`,
      read_only,
      parameters: { type: "object" },
      secret: "whsec_dGVzdC1zZWNyZXQtZm9yLXRvb2xz",
    });
    await configure(agentConfig("m-tier", { tools: [tracked("tracked_read", true), tracked("tracked_write", false)] }));
    const { toolServer } = await import("../helpers");
    await scriptLlm("m-tier", [
      {
        tool_calls: [
          { name: "tracked_write", arguments: { n: 1, ms: 300, group: "loop" } },
          { name: "tracked_read", arguments: { n: 2, ms: 300, group: "loop" } },
          { name: "tracked_write", arguments: { n: 3, ms: 300, group: "loop" } },
          { name: "tracked_read", arguments: { n: 4, ms: 300, group: "loop" } },
        ],
      },
      { content: "all four done" },
    ]);
    const { body } = await parallel("t1", { tool_calls: [sub("Do four things.")], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "all four done" });
    const { max_in_flight } = (await (await fetch(`${toolServer()}/__concurrency?group=loop`)).json()) as {
      max_in_flight: number;
    };
    expect(max_in_flight).toBe(2);
    const second = (await llmRequests("m-tier"))[1]!;
    expect(second.messages.filter((m: any) => m.role === "tool").map((m: any) => m.content)).toEqual([
      "tracked 1",
      "tracked 2",
      "tracked 3",
      "tracked 4",
    ]);
    const calls = (await (await fetch(`${toolServer()}/__calls`)).json()) as {
      path: string;
      body: string;
      at: number;
    }[];
    const order = calls
      .filter((c) => c.path === "/tracked" && JSON.parse(c.body).tool_args.group === "loop")
      .map((c) => JSON.parse(c.body).tool_args.n);
    expect(order.slice(0, 2).sort()).toEqual([2, 4]);
    expect(order.slice(2)).toEqual([1, 3]);
  });
});

describe("levels", () => {
  it("A0 → A1 → A2: a child may spawn within the depth limit, and the deepest level is offered no spawning", async () => {
    await configure(agentConfig("m-levels"));
    await scriptLlm("m-levels", [
      { tool_calls: [{ name: "spawn_task", arguments: { task: "Go one level deeper.", wait: true } }] },
      { content: "grandchild answer" },
      { content: "child answer" },
    ]);
    const { body } = await parallel("lv", { tool_calls: [sub("Delegate.")], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "child answer" });
    const child = await json(await api(`/v1/chats/${body.jobs[0].context_id}`));
    expect(child.level).toBe(1);
    expect(child.children).toHaveLength(1);
    const grandchild = await json(await api(`/v1/chats/${child.children[0].chat_id}`));
    expect(grandchild).toMatchObject({ level: 2, parent_chat_id: child.chat_id });
    const requests = await llmRequests("m-levels");
    const names = (r: { tools?: any[] }) => (r.tools ?? []).map((t: any) => t.function.name);
    expect(names(requests[0]!)).toContain("spawn_task");
    expect(names(requests[1]!)).not.toContain("spawn_task"); // A2 at max_depth 2
    expect(requests[2]!.messages.find((m: any) => m.role === "tool").content).toBe("grandchild answer");
  });
});

describe("spawn_task context", () => {
  it('"fork" passes the spawning agent\'s recent conversation; "fresh" passes nothing', async () => {
    await configure(agentConfig("m-fork"));
    await scriptLlm("m-fork", [
      {
        tool_calls: [
          { name: "spawn_task", arguments: { task: "Use the context.", context: "fork", wait: true } },
          { name: "spawn_task", arguments: { task: "No context.", wait: true } },
        ],
      },
      { content: "forked child answer" },
      { content: "fresh child answer" },
      { content: "done" },
    ]);
    const { body } = await parallel("f1", {
      tool_calls: [sub("Delegate with context: the code word is PAPAYA.")],
      timeout: 20,
    });
    expect(body.jobs[0].state).toBe("success");
    const firstUser = (r: { messages: any[] }) => r.messages.find((m: any) => m.role === "user").content as string;
    const [, a, b] = await llmRequests("m-fork");
    const forked = [a!, b!].find((r) => firstUser(r).includes("Use the context."))!;
    const fresh = [a!, b!].find((r) => firstUser(r).includes("No context."))!;
    expect(firstUser(forked)).toContain("Context from the agent that started you:");
    expect(firstUser(forked)).toContain("user: Delegate with context: the code word is PAPAYA.");
    expect(firstUser(fresh)).toBe("No context.");
  });
});

describe("cancellation", () => {
  it("cancelling a parent job stops its child's turn and the child's running jobs", async () => {
    await configure(agentConfig("m-cancel"));
    await scriptLlm("m-cancel", [{ tool_calls: [{ name: "hang", arguments: {} }] }]);
    const started = await parallel("x1", { tool_calls: [sub("Hang around.")], wait: false });
    const { job_id, context_id } = started.body.jobs[0];
    const hangJob = await childJob(context_id, "hang", "running");
    await parallel("x1", { action: "cancel", job_ids: [job_id] });
    const cancelled = await jobInState(context_id, hangJob, "cancelled");
    expect(cancelled.error).toBe("Parallel job was cancelled.");
  });

  it("deleting the parent chat deletes the child chat, running jobs and all", async () => {
    await configure(agentConfig("m-delete"));
    await scriptLlm("m-delete", [{ tool_calls: [{ name: "hang", arguments: {} }] }]);
    const started = await parallel("x2", { tool_calls: [sub("Hang around.")], wait: false });
    const { context_id } = started.body.jobs[0];
    await childJob(context_id, "hang", "running");
    expect((await api("/v1/chats/x2", { method: "DELETE" })).status).toBe(200);
    expect((await api(`/v1/chats/${context_id}/jobs`)).status).toBe(404);
    expect(await tables(context_id)).toEqual([]);
  });
});

describe("cancellation down the tree", () => {
  /** A0 → A1 → A2, with A2 hanging on a tool call; returns the parent job and the grandchild's hanging job. */
  async function hangingGrandchild(chat: string, model: string) {
    await configure(agentConfig(model));
    await scriptLlm(model, [
      { tool_calls: [{ name: "spawn_task", arguments: { task: "Hang one level deeper.", wait: true } }] },
      { tool_calls: [{ name: "hang", arguments: {} }] },
    ]);
    const started = await parallel(chat, { tool_calls: [sub("Delegate a hang.")], wait: false });
    const { job_id, context_id } = started.body.jobs[0];
    const grandchild = await eventually(
      async () => (await json(await api(`/v1/chats/${context_id}`))).children?.[0]?.chat_id as string | undefined,
    );
    const hangJob = await childJob(grandchild, "hang", "running");
    return { job_id, grandchild, hangJob };
  }

  it("cancelling a parent job reaches the grandchild's running jobs", async () => {
    const { job_id, grandchild, hangJob } = await hangingGrandchild("xr1", "m-cancel-deep");
    await parallel("xr1", { action: "cancel", job_ids: [job_id] });
    const cancelled = await jobInState(grandchild, hangJob, "cancelled");
    expect(cancelled.error).toBe("Parallel job was cancelled.");
  });

  it("deleting the parent chat reaches the grandchild: it is gone before the answer", async () => {
    const { grandchild } = await hangingGrandchild("xr2", "m-delete-deep");
    expect((await api("/v1/chats/xr2", { method: "DELETE" })).status).toBe(200);
    expect((await api(`/v1/chats/${grandchild}/jobs`)).status).toBe(404);
    expect(await tables(grandchild)).toEqual([]);
  });
});

describe("retention of child chats", () => {
  it("a child chat is deleted retention_seconds after its last turn ended", async () => {
    await configure(agentConfig("m-purge", { limits: { retention_seconds: 60 } }));
    await scriptLlm("m-purge", [{ content: "short-lived" }]);
    const { body } = await parallel("rp", { tool_calls: [sub("x")], timeout: 20 });
    const child = body.jobs[0].context_id;
    expect((await api(`/v1/chats/${child}`)).status).toBe(200);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 59_000);
    await runDurableObjectAlarm(chatObject(child));
    expect((await api(`/v1/chats/${child}`)).status).toBe(200);
    vi.setSystemTime(Date.now() + 2_000);
    expect(await runDurableObjectAlarm(chatObject(child))).toBe(true);
    vi.useRealTimers();
    expect((await api(`/v1/chats/${child}`)).status).toBe(404);
  });
});

describe("parallel inside a child", () => {
  it("a child's model may call parallel: its calls start at once and it reads the results payload", async () => {
    await configure(agentConfig("m-par"));
    await scriptLlm("m-par", [
      {
        tool_calls: [
          {
            name: "parallel",
            arguments: {
              tool_calls: [
                { tool_name: "echo", tool_args: { a: 1 } },
                { tool_name: "text", tool_args: {} },
              ],
            },
          },
        ],
      },
      { content: "combined" },
    ]);
    const { body } = await parallel("pp", { tool_calls: [sub("Use parallel.")], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "combined" });
    const second = (await llmRequests("m-par"))[1]!;
    const payload = JSON.parse(second.messages.find((m: any) => m.role === "tool").content);
    expect(payload.status).toBe("success");
    expect(payload.jobs.map((j: any) => j.result)).toEqual(['{"a":1}', "plain answer"]);
  });

  it("parallel with wait:false answers at once; the jobs reach the model before it may finish", async () => {
    await configure(agentConfig("m-par-bg"));
    await scriptLlm("m-par-bg", [
      {
        tool_calls: [
          {
            name: "parallel",
            arguments: { tool_calls: [{ tool_name: "sleep", tool_args: { ms: 400 } }], wait: false },
          },
        ],
      },
      { content: "started it" },
      { content: "final, after the sleep" },
    ]);
    const { body } = await parallel("pp-bg", { tool_calls: [sub("Start a background sleep.")], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "final, after the sleep" });
    const requests = await llmRequests("m-par-bg");
    expect(requests).toHaveLength(3);
    const started = JSON.parse(requests[1]!.messages.find((m: any) => m.role === "tool").content);
    expect(started.status).toBe("started");
    expect(started.jobs[0]).toMatchObject({ tool_name: "sleep", state: "pending" });
    const report = requests[2]!.messages.at(-1);
    expect(report.role).toBe("user");
    expect(report.content).toContain('"tool_name":"sleep","state":"success"');
  });

  it("a child may spawn a subordinate from inside its parallel", async () => {
    await configure(agentConfig("m-par-spawn"));
    await scriptLlm("m-par-spawn", [
      {
        tool_calls: [
          {
            name: "parallel",
            arguments: { tool_calls: [{ tool_name: "spawn_task", tool_args: { task: "Go deeper." } }] },
          },
        ],
      },
      { content: "deep answer" },
      { content: "combined" },
    ]);
    const { body } = await parallel("pp-spawn", { tool_calls: [sub("Delegate through parallel.")], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "combined" });
    const payload = JSON.parse(
      (await llmRequests("m-par-spawn"))[2]!.messages.find((m: any) => m.role === "tool").content,
    );
    expect(payload.jobs[0]).toMatchObject({ tool_name: "spawn_task", state: "success", result: "deep answer" });
    const grandchild = await json(await api(`/v1/chats/${payload.jobs[0].context_id}`));
    expect(grandchild).toMatchObject({ level: 2, parent_chat_id: body.jobs[0].context_id });
  });

  it("refuses a nested parallel inside the child's parallel with the usual error, and carries on", async () => {
    await configure(agentConfig("m-par2"));
    await scriptLlm("m-par2", [
      { tool_calls: [{ name: "parallel", arguments: { tool_calls: [{ tool_name: "parallel", tool_args: {} }] } }] },
      { content: "recovered" },
    ]);
    const { body } = await parallel("pp2", { tool_calls: [sub("Nest.")], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "recovered" });
    const second = (await llmRequests("m-par2"))[1]!;
    expect(second.messages.find((m: any) => m.role === "tool").content).toBe(
      "Error: `parallel` cannot be nested inside another `parallel` call.",
    );
  });

  it("ends error when max_steps is reached without a final answer, with the last text", async () => {
    await configure(agentConfig("m-steps", { agents: { default: { max_steps: 2 } } }));
    await scriptLlm("m-steps", [
      { content: "thinking", tool_calls: [{ name: "wait", arguments: { seconds: 0.01 } }] },
      { content: "still thinking", tool_calls: [{ name: "wait", arguments: { seconds: 0.01 } }] },
    ]);
    const { body } = await parallel("ms", { tool_calls: [sub("Loop.")], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({
      state: "error",
      error: "Reached max_steps (2) without a final answer. Last text: still thinking",
    });
  });
});

describe("review findings", () => {
  it("checks permission.task for call_subordinate with no profile (the type is default)", async () => {
    await configure(
      agentConfig("m-h1", {
        agents: {
          boss: {
            permission: {
              task: [
                ["*", "deny"],
                ["researcher", "allow"],
              ],
            },
          },
          researcher: {},
        },
      }),
    );
    const res = await parallel(
      "h1a",
      { tool_calls: [call("call_subordinate", { message: "hi" })] },
      { query: "?agent=boss" },
    );
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe('Sub-agent type "default" is not allowed (permission.task).');
  });

  it("a child stopped mid-call answers the open call, so continuing it sends a valid history", async () => {
    await configure(agentConfig("m-h2"));
    await scriptLlm("m-h2", [{ tool_calls: [{ name: "hang", arguments: {} }] }, { content: "continued fine" }]);
    const first = await parallel("h2a", { tool_calls: [sub("Hang.")], job_timeout: 30, wait: false });
    const { job_id, context_id } = first.body.jobs[0];
    await childJob(context_id, "hang", "running");
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 31_000);
    await runDurableObjectAlarm(chatObject("h2a"));
    vi.useRealTimers();
    expect((await jobRow("h2a", job_id))?.state).toBe("timeout");
    await eventually(() =>
      runInDurableObject(
        chatObject(context_id),
        (_i, s) => s.storage.sql.exec("SELECT state FROM turns").one().state === "stopped",
      ),
    );
    const again = await parallel("h2a", {
      tool_calls: [call("call_subordinate", { message: "Go on.", context_id })],
      timeout: 20,
    });
    expect(again.body.jobs[0]).toMatchObject({ state: "success", result: "continued fine" });
    const roles = (await llmRequests("m-h2"))[1]!.messages.map((m: any) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "user"]);
  });

  it("deleting a child chat ends the parent's job with `child chat deleted`", async () => {
    await configure(agentConfig("m-h3"));
    await scriptLlm("m-h3", [{ tool_calls: [{ name: "hang", arguments: {} }] }]);
    const started = await parallel("h3a", { tool_calls: [sub("Hang.")], wait: false });
    const { job_id, context_id } = started.body.jobs[0];
    await eventually(async () => (await api(`/v1/chats/${context_id}`)).status === 200);
    await childJob(context_id, "hang");
    expect((await api(`/v1/chats/${context_id}`, { method: "DELETE" })).status).toBe(200);
    const { body } = await parallel("h3a", { action: "await", job_ids: [job_id], timeout: 10 });
    expect(body.jobs[0]).toMatchObject({ state: "error", error: "child chat deleted" });
  });

  it("a child limited by spawn_task tools cannot reach other tools through parallel", async () => {
    await configure(agentConfig("m-m3"));
    await scriptLlm("m-m3", [
      { tool_calls: [{ name: "parallel", arguments: { tool_calls: [{ tool_name: "text", tool_args: {} }] } }] },
      { content: "done" },
    ]);
    const { body } = await parallel("m3a", {
      tool_calls: [call("spawn_task", { task: "x", tools: ["echo"] })],
      timeout: 20,
    });
    expect(body.jobs[0].state).toBe("success");
    const toolMessage = (await llmRequests("m-m3"))[1]!.messages.find((m: any) => m.role === "tool").content;
    expect(toolMessage).toMatch(
      /^Error: tool_calls\[0\] uses unknown tool 'text'\. Available tools: wait, echo, spawn_task, call_subordinate\.$/,
    );
  });

  it("a spawn_task tools subset binds the whole subtree: a grandchild gets no tool its parent could not use", async () => {
    await configure(agentConfig("m-b5-grand", { agents: { worker: { description: "w", model: "m-b5-child" } } }));
    await scriptLlm("m-b5-child", [
      {
        tool_calls: [
          { name: "spawn_task", arguments: { task: "deeper" } },
          { name: "spawn_task", arguments: { task: "wider", tools: ["echo", "text"] } },
        ],
      },
    ]);
    await scriptLlm("m-b5-grand", [{ tool_calls: [{ name: "text", arguments: {} }] }, { content: "grand done" }]);
    const { body } = await parallel("b5a", {
      tool_calls: [call("spawn_task", { task: "x", agent: "worker", tools: ["echo"] })],
      timeout: 20,
    });
    expect(body.jobs[0].state).toBe("success");

    const grand = await llmRequests("m-b5-grand");
    const offered = grand[0]!.tools!.map((t: any) => t.function.name);
    expect(offered).toContain("echo");
    expect(offered).not.toContain("text");
    expect(offered).not.toContain("sleep");
    expect(grand[1]!.messages.find((m: any) => m.role === "tool").content).toMatch(
      /^Error: tool_calls\[0\] uses unknown tool 'text'\./,
    );

    const childResults = (await llmRequests("m-b5-child"))[1]!.messages
      .filter((m: any) => m.role === "tool")
      .map((m: any) => m.content);
    expect(childResults[1]).toBe(
      "Error: `tools` must be a subset of the 'default' profile's tools within this agent's own (echo); not allowed: text.",
    );
  });

  it("a restricted child chat keeps to its tools for calls a key holder sends it directly", async () => {
    await configure(agentConfig("m-b7"));
    await scriptLlm("m-b7", [{ content: "done" }]);
    const { body } = await parallel("b7a", {
      tool_calls: [call("spawn_task", { task: "x", tools: ["echo"] })],
      timeout: 20,
    });
    const child = body.jobs[0].context_id;

    const outside = await parallel(child, { tool_calls: [call("text")] });
    expect(outside.status).toBe(400);
    expect(outside.body.error).toEqual({
      code: "unknown_tool",
      message: "tool_calls[0] uses tool 'text', which this chat may not use: it was started with the tools echo.",
    });
    const inside = await parallel(child, { tool_calls: [call("echo", { a: 1 })] });
    expect(inside.body.jobs[0]).toMatchObject({ state: "success" });

    const wider = await api(`/v1/chats/${child}/spawn`, { body: { task: "y", tools: ["text"] } });
    expect(wider.status).toBe(400);
    expect((await json(wider)).error.code).toBe("invalid_subordinate_call");

    const tiered = await json(
      await api(`/v1/chats/${child}/tool-calls`, {
        body: {
          tool_calls: [
            { id: "a", name: "text", arguments: "{}" },
            { id: "b", name: "echo", arguments: '{"b":2}' },
          ],
          timeout: 10,
        },
      }),
    );
    expect(tiered.results.map((r: any) => [r.tool_call_id, r.content])).toEqual([
      ["a", "Error: tool_calls[0] uses tool 'text', which this chat may not use: it was started with the tools echo."],
      ["b", '{"b":2}'],
    ]);
  });

  it("a child started with a tools subset keeps it when call_subordinate continues it", async () => {
    await configure(agentConfig("m-b8"));
    await scriptLlm("m-b8", [{ content: "first" }, { content: "second" }]);
    const first = await parallel("b8a", {
      tool_calls: [call("spawn_task", { task: "x", tools: ["echo"] })],
      timeout: 20,
    });
    const child = first.body.jobs[0].context_id;
    const again = await parallel("b8a", {
      tool_calls: [call("call_subordinate", { message: "go on", context_id: child })],
      timeout: 20,
    });
    expect(again.body.jobs[0]).toMatchObject({ state: "success", result: "second" });
    const offered = (await llmRequests("m-b8"))[1]!.tools!.map((t: any) => t.function.name);
    expect(offered).toContain("echo");
    expect(offered).not.toContain("text");
  });

  it("refuses subordinate arguments of the wrong type instead of ignoring them", async () => {
    await configure(agentConfig("m-l4"));
    const res = await parallel("l4a", { tool_calls: [call("call_subordinate", { message: "x", profile: 5 })] });
    expect(res.body.error).toEqual({ code: "invalid_subordinate_call", message: "`profile` must be a string." });
  });
});

describe("atomic parallel and the latest child inside tiered batches", () => {
  it("a parallel call inside a child that breaks the cap starts none of its calls", async () => {
    await configure(agentConfig("m-m2", { limits: { max_parallel_subagents: 1 } }));
    await scriptLlm("m-m2", [
      {
        tool_calls: [
          {
            name: "parallel",
            arguments: {
              tool_calls: [
                { tool_name: "spawn_task", tool_args: { task: "a" } },
                { tool_name: "spawn_task", tool_args: { task: "b" } },
              ],
            },
          },
        ],
      },
      { content: "adapted" },
    ]);
    const { body } = await parallel("m2a", { tool_calls: [sub("Fan out.")], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "adapted" });
    const toolMessage = (await llmRequests("m-m2"))[1]!.messages.find((m: any) => m.role === "tool").content;
    expect(toolMessage).toMatch(/^Error: Subagent limit reached/);
    const started = await runInDurableObject(
      chatObject(body.jobs[0].context_id),
      (_i, s) => s.storage.sql.exec("SELECT COUNT(*) AS n FROM jobs WHERE kind = 'subordinate'").one().n,
    );
    expect(started).toBe(0);
    expect(await llmRequests("m-m2")).toHaveLength(2);
  });

  it("two continue-the-latest calls in one tool-calls batch: the second is still running", async () => {
    await configure(agentConfig("m-l1"));
    await scriptLlm("m-l1", [{ content: "one" }]);
    const res = await api("/v1/chats/l1a/tool-calls", {
      body: {
        tool_calls: [
          { id: "a", type: "function", function: { name: "call_subordinate", arguments: '{"message":"first"}' } },
          { id: "b", type: "function", function: { name: "call_subordinate", arguments: '{"message":"second"}' } },
        ],
        timeout: 20,
      },
    });
    const body = await json(res);
    expect(body.results[0]).toMatchObject({ state: "success", content: "one" });
    expect(body.results[1].error.message).toMatch(/^Subordinate context 'sub-[^']+' is still running\./);
  });
});

describe("usage and token budget", () => {
  it("sums usage over the subtree: a child's usage includes its subordinates'", async () => {
    await configure(agentConfig("m-usage"));
    await scriptLlm("m-usage", [
      { tool_calls: [{ name: "spawn_task", arguments: { task: "deeper", wait: true } }] },
      { content: "grandchild" },
      { content: "child" },
    ]);
    const { body } = await parallel("u1", { tool_calls: [sub("Delegate.")], timeout: 20 });
    // child: 2 LLM calls and a subagent; grandchild: 1 LLM call. 10 prompt + 5 completion tokens each.
    // The spawn is a subagent, not a tool call: two subagents in all, the child and the grandchild.
    expect(body.jobs[0].usage).toEqual({
      llm_calls: 3,
      prompt_tokens: 30,
      completion_tokens: 15,
      tool_calls: 0,
      subagents: 2,
    });
  });

  it("ends the job `Token budget exhausted.` once max_tokens_per_job is crossed", async () => {
    await configure(agentConfig("m-budget", { limits: { max_tokens_per_job: 20 } }));
    await scriptLlm("m-budget", [
      { tool_calls: [{ name: "wait", arguments: { seconds: 0.01 } }] },
      { content: "too expensive" },
    ]);
    const { body } = await parallel("u2", { tool_calls: [sub("Spend.")], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({ state: "error", error: "Token budget exhausted." });
    expect(body.jobs[0].usage.llm_calls).toBe(2);
  });
});

describe("hand-back records", () => {
  it("are dropped after 24 hours by the purge", async () => {
    await configure(agentConfig("m-evt-ttl", { limits: { retention_seconds: 604800 } }));
    await scriptLlm("m-evt-ttl", [{ content: "x" }]);
    await parallel("et", { tool_calls: [sub("x")], timeout: 20 });
    // Event rows, and every event a resuming client reads (job.started and job.finished are kept on
    // the job row, which outlives them: the jobs are kept 7 days).
    const count = () =>
      runInDurableObject(chatObject("et"), (_i, s) => ({
        rows: s.storage.sql.exec("SELECT COUNT(*) AS n FROM events").one().n,
        kept: new ChatStore(s, () => env).events.after(0, 100, Date.now()).length,
        jobs: s.storage.sql.exec("SELECT COUNT(*) AS n FROM jobs").one().n,
      }));
    // chat.created, subagent.started, subagent.finish, batch.finished, chat.idle; and job.started, job.finished
    expect(await count()).toEqual({ rows: 5, kept: 7, jobs: 1 });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 24 * 3600_000 + 1000);
    expect(await runDurableObjectAlarm(chatObject("et"))).toBe(true);
    expect(await count()).toEqual({ rows: 0, kept: 0, jobs: 1 });
    vi.useRealTimers();
  });
});

describe("child chat events", () => {
  it("a child renamed on continuation announces chat.updated", async () => {
    await configure(agentConfig("m-rename"));
    await scriptLlm("m-rename", [{ content: "one" }, { content: "two" }]);
    const first = await parallel("rn1", { tool_calls: [sub("Start.")], timeout: 20 });
    const contextId = first.body.jobs[0].context_id;
    await parallel("rn1", {
      tool_calls: [call("call_subordinate", { message: "Go on.", context_id: contextId, name: "Renamed" })],
      timeout: 20,
    });
    const types = await runInDurableObject(chatObject(contextId), (_i, s) =>
      s.storage.sql
        .exec("SELECT type, data FROM events ORDER BY seq")
        .toArray()
        .map((r) => [r.type, JSON.parse(String(r.data)).name]),
    );
    expect(types.filter(([type]) => String(type).startsWith("chat."))).toEqual([
      ["chat.created", "Start."],
      ["chat.updated", "Renamed"],
    ]);
  });
});

describe("per-tree subagent cap", () => {
  it("refuses a top-level batch over max_subagents_per_tree whole, scope tree", async () => {
    await configure(agentConfig("m-tree-1", { limits: { max_parallel_subagents: 5, max_subagents_per_tree: 2 } }));
    const res = await parallel("tr1", { tool_calls: [sub("a"), sub("b"), sub("c")] });
    expect(res.status).toBe(429);
    expect(res.body.error).toEqual({
      code: "subagent_limit",
      message: "Subagent limit reached (0 running + 3 requested > 2); wait for running subagents or split the batch.",
      scope: "tree",
      running: 0,
      limit: 2,
      requested: 3,
      running_job_ids: [],
    });
    expect((await api("/v1/chats/tr1")).status).toBe(404);
  });

  it("counts descendants: a child's subordinates share the tree's slots with its own job", async () => {
    await configure(agentConfig("m-tree-2", { limits: { max_parallel_subagents: 5, max_subagents_per_tree: 2 } }));
    await scriptLlm("m-tree-2", [
      {
        tool_calls: [
          { name: "spawn_task", arguments: { task: "one", wait: true } },
          { name: "spawn_task", arguments: { task: "two", wait: true } },
        ],
      },
      { content: "grandchild done" },
      { content: "child done" },
    ]);
    const { body } = await parallel("tr2", { tool_calls: [sub("Fan out twice.")], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "child done" });
    const requests = await llmRequests("m-tree-2");
    const toolMessages = requests[2]!.messages.filter((m: any) => m.role === "tool").map((m: any) => m.content);
    expect(toolMessages[0]).toBe("grandchild done");
    expect(toolMessages[1]).toBe(
      "Error: Subagent limit reached (2 running + 1 requested > 2); wait for running subagents or split the batch.",
    );
    // Every slot is given back once the jobs end.
    const again = await parallel("tr2", { tool_calls: [sub("x"), sub("y")], wait: false });
    expect(again.status).toBe(200);
  });
  it("names the jobs holding the tree, at the root and from a child", async () => {
    await configure(agentConfig("m-tree-3", { limits: { max_parallel_subagents: 5, max_subagents_per_tree: 2 } }));
    await scriptLlm("m-tree-3", [
      { content: "slow one", delay_ms: 3000 },
      { content: "slow two", delay_ms: 3000 },
    ]);
    const started = await parallel("tr3", { tool_calls: [sub("one"), sub("two")], wait: false });
    const holders = started.body.jobs.map((j: any) => j.job_id);
    const atRoot = await parallel("tr3", { tool_calls: [sub("three")], wait: false });
    expect(atRoot.status).toBe(429);
    expect(atRoot.body.error).toMatchObject({ scope: "tree", running: 2, requested: 1 });
    expect([...atRoot.body.error.running_job_ids].sort()).toEqual([...holders].sort());
    // The child asks the root, which answers with the same holders.
    const child = started.body.jobs[0].context_id;
    await eventually(async () => (await api(`/v1/chats/${child}`)).status === 200);
    const fromChild = await parallel(child, { tool_calls: [sub("four")], wait: false });
    expect(fromChild.status).toBe(429);
    expect([...fromChild.body.error.running_job_ids].sort()).toEqual([...holders].sort());
    await parallel("tr3", { action: "cancel", job_ids: holders });
  });
  it("a call refused for another reason never takes the tree slot a later call needs", async () => {
    await configure(agentConfig("m-tree-4", { limits: { max_parallel_subagents: 5, max_subagents_per_tree: 2 } }));
    await scriptLlm("m-tree-4", [{ content: "holding the root slot", delay_ms: 3000 }, { content: "researched" }]);
    const started = await parallel("tr4", { tool_calls: [sub("hold")], wait: false });
    const child = started.body.jobs[0].context_id;
    await eventually(async () => (await api(`/v1/chats/${child}`)).status === 200);
    // One free slot; the first call continues a child this chat does not have: only the chat can tell.
    const res = await api(`/v1/chats/${child}/tool-calls`, {
      body: {
        tool_calls: [
          {
            id: "a",
            type: "function",
            function: { name: "call_subordinate", arguments: '{"message":"x","context_id":"sub-nobody"}' },
          },
          { id: "b", type: "function", function: { name: "spawn_task", arguments: '{"task":"allowed"}' } },
        ],
        timeout: 20,
      },
    });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.results[0]).toMatchObject({ job_id: null, error: { code: "invalid_subordinate_call" } });
    expect(body.results[1]).toMatchObject({ state: "success", content: "researched" });
    await parallel("tr4", { action: "cancel", job_ids: [started.body.jobs[0].job_id] });
  });
});

describe("idle subagents", () => {
  it("a child with no progress for subagent_idle_seconds ends its job timeout", async () => {
    await configure(agentConfig("m-idle", { limits: { subagent_idle_seconds: 60 } }));
    await scriptLlm("m-idle", [{ content: "far too late", delay_ms: 4000 }]);
    const started = await parallel("id1", { tool_calls: [sub("Think slowly.")], wait: false });
    const { job_id, context_id } = started.body.jobs[0];
    await eventually(async () => (await llmRequests("m-idle")).length === 1);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61_000);
    expect(await runDurableObjectAlarm(chatObject(context_id))).toBe(true);
    vi.useRealTimers();
    const row = await jobInState("id1", job_id, "timeout");
    expect(row.error).toBe("No progress for 60 s (limits.subagent_idle_seconds); the subagent was stopped.");
  });

  it("a profile's own idle_seconds replaces the tenant's limit for its chats, and its error says which setting", async () => {
    await configure(
      agentConfig("m-idle-p", {
        limits: { subagent_idle_seconds: 600 },
        agents: { quick: { description: "answers fast", idle_seconds: 30 } },
      }),
    );
    await scriptLlm("m-idle-p", [
      { content: "far too late", delay_ms: 4000 },
      { content: "far too late", delay_ms: 4000 },
    ]);
    const started = await parallel("id1p", {
      tool_calls: [sub("Think slowly.", { profile: "quick" }), sub("Think slowly too.")],
      wait: false,
    });
    const [quick, plain] = started.body.jobs;
    await eventually(async () => (await llmRequests("m-idle-p")).length === 2);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 31_000);
    expect(await runDurableObjectAlarm(chatObject(quick.context_id))).toBe(true);
    await runDurableObjectAlarm(chatObject(plain.context_id));
    vi.useRealTimers();
    const row = await jobInState("id1p", quick.job_id, "timeout");
    expect(row).toMatchObject({
      error: "No progress for 30 s (agents.quick.idle_seconds); the subagent was stopped.",
      error_type: "idle_timeout",
    });
    // The default profile keeps the tenant's 600 s: still running.
    expect((await json(await api(`/v1/chats/id1p/jobs/${plain.job_id}`))).state).toBe("running");
  });

  it("time spent awaiting its own running jobs is not idle", async () => {
    await configure(agentConfig("m-busy", { limits: { subagent_idle_seconds: 60 } }));
    await scriptLlm("m-busy", [{ tool_calls: [{ name: "hang", arguments: {} }] }]);
    const started = await parallel("id2", { tool_calls: [sub("Wait on a tool.")], wait: false });
    const { job_id, context_id } = started.body.jobs[0];
    await childJob(context_id, "hang", "running");
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61_000);
    await runDurableObjectAlarm(chatObject(context_id));
    vi.useRealTimers();
    expect((await jobRow("id2", job_id))?.state).toBe("running");
    await parallel("id2", { action: "cancel", job_ids: [job_id] });
  });
});

describe("background subagents in a loop", () => {
  it("spawn_task without wait answers at once; the model hears the results before it may finish", async () => {
    // The background subagent uses a profile with its own model, so each script is read by one chat only.
    await configure(agentConfig("m-bg", { agents: { worker: { model: "m-bg-worker" } } }));
    await scriptLlm("m-bg", [
      { tool_calls: [{ name: "spawn_task", arguments: { task: "Slow background work.", agent: "worker" } }] },
      { content: "I will wait for the background work." },
      { content: "final, with the background result" },
    ]);
    await scriptLlm("m-bg-worker", [{ content: "background result", delay_ms: 500 }]);
    const { body } = await parallel("bg1", { tool_calls: [sub("Start something in the background.")], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "final, with the background result" });
    const requests = await llmRequests("m-bg");
    expect(requests).toHaveLength(3);
    const started = JSON.parse(requests[1]!.messages.find((m: any) => m.role === "tool").content);
    expect(started.status).toBe("started");
    const report = requests[2]!.messages.at(-1);
    expect(report.role).toBe("user");
    expect(report.content).toContain('"result":"background result"');
    expect(body.jobs[0].usage.llm_calls).toBe(4);
  });
});
