/**
 * Approvals (docs/api.md#approvals) in the Workers runtime: a call under an approval rule waits for
 * a person before anything is sent to its tool; approved it runs, denied or unanswered it ends
 * `error`, exactly once whatever retries and rival decisions come; the tenant's list follows.
 */
import { abortAllDurableObjects, env, reset, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  advanceAndRunAlarm,
  agentConfig,
  api,
  call,
  chatObject,
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
import { configSchema } from "../../src/core/config/schema";
import { tenantName } from "../../src/core/objects/names";
import { TEST_KEYS } from "../setup/bindings";
import { inbox, received, webhookConfig } from "../webhook-inbox";

afterEach(() => {
  vi.useRealTimers();
  return reset();
});

const approvals = (rules: unknown[], more: Record<string, unknown> = {}) => ({ approvals: rules, ...more });
const decide = (chat: string, jobId: string, body: unknown) =>
  api(`/v1/chats/${chat}/jobs/${jobId}/approval`, { body });
const record = async (chat: string, jobId: string) => json(await api(`/v1/chats/${chat}/jobs/${jobId}`));
/** The chat's `job.approval_decided` events for a job, read from its storage (delivery plays no part). */
const decidedEvents = (chat: string, jobId: string) =>
  runInDurableObject(chatObject(chat), (_instance, state) =>
    state.storage.sql
      .exec<{ data: string }>("SELECT data FROM events WHERE type = 'job.approval_decided' ORDER BY seq")
      .toArray()
      .map((row) => JSON.parse(row.data) as Record<string, any>)
      .filter((data) => data.job_id === jobId),
  );
const events = async (name: string) =>
  (await received(name)).map((r) => JSON.parse(r.body) as { type: string; data: Record<string, any> });

describe("approvals", () => {
  it("hold a matching call pending, tell the webhook, and send nothing to the tool until a person approves", async () => {
    const hook = await inbox("appr-1");
    await configure(webhookConfig(hook, approvals([{ tools: ["other"], timeout_seconds: 600 }])));
    const res = await parallel(
      "appr-1",
      { tool_calls: [call("other", { to: "a@example.com" }), call("echo", { x: 1 })], wait: false },
      { query: `?metadata=${encodeURIComponent('{"user":"u1"}')}` },
    );
    expect(res.status).toBe(200);
    const [held, free] = res.body.jobs;
    expect(held).toMatchObject({ state: "pending", waiting_for: "approval" });
    expect(Date.parse(held.approval_expires_at) - Date.now()).toBeGreaterThan(590_000);
    // The other call of the batch runs meanwhile.
    await eventually(async () => ((await record("appr-1", free.job_id)).state === "success" ? true : undefined));
    const asked = await eventually(async () =>
      (await events("appr-1")).find((e) => e.type === "job.approval_requested"),
    );
    expect(asked.data).toMatchObject({
      job_id: held.job_id,
      tool_name: "other",
      state: "pending",
      waiting_for: "approval",
      tool_args: { to: "a@example.com" },
      chat_id: "appr-1",
      root_chat_id: "appr-1",
      agent: "default",
      approval_expires_at: held.approval_expires_at,
      metadata: { user: "u1" },
    });
    expect(await toolCalls(held.job_id)).toEqual([]);
    // Nothing says the call was made: the chat counts it waiting, its log row says what it waits for.
    expect(await json(await api("/v1/chats/appr-1"))).toMatchObject({ running_jobs: 1, waiting_jobs: 1 });
    const logRow = async () =>
      (await json(await api("/v1/chats/appr-1/log"))).rows.find((r: any) => r.job_id === held.job_id).heading;
    expect(await logRow()).toBe("Tool 'other' waits for approval");
    expect((await record("appr-1", held.job_id)).waited).toEqual([
      { for: "approval", from: expect.any(String), to: null },
    ]);

    const approved = await decide("appr-1", held.job_id, { decision: "approve", by: "alice" });
    expect(approved.status).toBe(200);
    const snapshot = await json(approved);
    expect(snapshot.job_id).toBe(held.job_id);
    expect(snapshot).not.toHaveProperty("approval_expires_at");
    const done = await eventually(async () => {
      const r = await record("appr-1", held.job_id);
      return r.state === "success" ? r : undefined;
    });
    expect(done.approval).toMatchObject({ status: "approved", by: "alice", reason: null });
    // What it waited for stays on its record once it ran, from its acceptance to the decision.
    expect(done.waited).toEqual([{ for: "approval", from: done.created_at, to: expect.any(String) }]);
    expect(Date.parse(done.waited[0].to)).toBeGreaterThanOrEqual(Date.parse(done.approval.decided_at));
    expect(await logRow()).toBe("Using tool 'other'");
    expect(await toolCalls(held.job_id)).toHaveLength(1);
    const decided = await eventually(async () =>
      (await events("appr-1")).find((e) => e.type === "job.approval_decided"),
    );
    expect(decided.data).toMatchObject({
      job_id: held.job_id,
      decision: "approve",
      by: "alice",
      reason: null,
      metadata: { user: "u1" },
    });
  });

  it("take a decision once: the same again is a harmless 200, the other a 409, and a call with no rule a 409 too", async () => {
    await configure(toolConfig(approvals([{ tools: ["other"] }])));
    const res = await parallel("appr-2", { tool_calls: [call("other"), call("echo")], wait: false });
    const [held, free] = res.body.jobs;
    const deny = { decision: "deny", by: "bob", reason: "not today" };
    const [first, second] = await Promise.all([
      decide("appr-2", held.job_id, deny),
      decide("appr-2", held.job_id, deny),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const denied = await record("appr-2", held.job_id);
    expect(denied).toMatchObject({
      state: "error",
      error: "The call was denied by bob: not today.",
      approval: { status: "denied", by: "bob" },
    });
    const other = await decide("appr-2", held.job_id, { decision: "approve" });
    expect(other.status).toBe(409);
    expect((await json(other)).error).toMatchObject({ code: "already_decided", status: "denied" });
    expect(await toolCalls(held.job_id)).toEqual([]);

    const none = await decide("appr-2", free.job_id, { decision: "approve" });
    expect(none.status).toBe(409);
    expect((await json(none)).error.code).toBe("not_awaiting_approval");
    expect((await decide("appr-2", "other-nope", { decision: "approve" })).status).toBe(404);
    expect((await decide("appr-2", held.job_id, { decision: "maybe" })).status).toBe(400);
    expect((await decide("appr-2", held.job_id, { decision: "deny", reason: "x".repeat(501) })).status).toBe(400);
  });

  it("end a call nobody decided on at its deadline, with the contract's text, and never send it", async () => {
    await configure(toolConfig(approvals([{ tools: ["other"], timeout_seconds: 60 }])));
    const res = await parallel("appr-3", { tool_calls: [call("other")], wait: false });
    const held = res.body.jobs[0];
    vi.useFakeTimers({ toFake: ["Date"] });
    await advanceAndRunAlarm("appr-3", 61_000);
    vi.useRealTimers();
    const ended = await record("appr-3", held.job_id);
    expect(ended).toMatchObject({
      state: "error",
      error: "No approval within 60 s; the call was not made.",
      approval: { status: "expired" },
    });
    expect((await decide("appr-3", held.job_id, { decision: "approve" })).status).toBe(409);
    expect(await toolCalls(held.job_id)).toEqual([]);
  });

  it("refuse a decision at or after the deadline though the alarm has not run: the call ends expired, once, and is never sent", async () => {
    await configure(toolConfig(approvals([{ tools: ["other"], timeout_seconds: 60 }])));
    const res = await parallel("appr-9", {
      tool_calls: [call("other", { n: 1 }), call("other", { n: 2 }), call("other", { n: 3 })],
      wait: false,
    });
    const [inTime, atDeadline, late] = res.body.jobs;
    const deadline = (job: any) => Date.parse(job.approval_expires_at);
    vi.useFakeTimers({ toFake: ["Date"] });

    // 1 ms before the deadline a decision is still taken.
    vi.setSystemTime(deadline(inTime) - 1);
    expect((await decide("appr-9", inTime.job_id, { decision: "approve", by: "alice" })).status).toBe(200);

    // At the deadline, with no alarm run: too late, and the call ends as the alarm would have ended it.
    vi.setSystemTime(deadline(atDeadline));
    const denied = await decide("appr-9", atDeadline.job_id, { decision: "deny", by: "bob" });
    expect(denied.status).toBe(409);
    expect((await json(denied)).error).toMatchObject({ code: "already_decided", status: "expired" });

    // 20 ms after it, as in the report: an approval is refused too, and its call is not made.
    vi.setSystemTime(deadline(late) + 20);
    const approved = await decide("appr-9", late.job_id, { decision: "approve", by: "carol" });
    expect(approved.status).toBe(409);
    expect((await json(approved)).error).toMatchObject({ code: "already_decided", status: "expired" });
    // Asked again, the same answer; the decision taken in time still stands.
    expect((await json(await decide("appr-9", late.job_id, { decision: "approve" }))).error).toMatchObject({
      code: "already_decided",
      status: "expired",
    });
    expect((await decide("appr-9", inTime.job_id, { decision: "approve" })).status).toBe(200);

    for (const job of [atDeadline, late]) {
      expect(await record("appr-9", job.job_id)).toMatchObject({
        state: "error",
        error: "No approval within 60 s; the call was not made.",
        approval: { status: "expired", by: null, reason: null },
      });
    }
    // The alarm comes late and finds them decided: they end once, and say so once.
    await runDurableObjectAlarm(chatObject("appr-9"));
    vi.useRealTimers();
    for (const job of [atDeadline, late]) {
      expect(await decidedEvents("appr-9", job.job_id)).toEqual([
        expect.objectContaining({ decision: "expired", by: null, reason: null }),
      ]);
      expect((await record("appr-9", job.job_id)).error).toBe("No approval within 60 s; the call was not made.");
      expect(await toolCalls(job.job_id)).toEqual([]);
    }
    expect(await decidedEvents("appr-9", inTime.job_id)).toEqual([
      expect.objectContaining({ decision: "approve", by: "alice" }),
    ]);
    await eventually(async () => ((await record("appr-9", inTime.job_id)).state === "success" ? true : undefined));
    expect(await toolCalls(inTime.job_id)).toHaveLength(1);
  });

  it("keep order in a sequential tier: a call waiting for approval holds the calls after it", async () => {
    await configure(toolConfig(approvals([{ tools: ["other"] }])));
    // Side-effecting calls in /tool-calls run one after another in call order.
    const res = await api("/v1/chats/appr-4/tool-calls", {
      body: {
        timeout: 1,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "other", arguments: "{}" } },
          { id: "c2", type: "function", function: { name: "hang_write", arguments: "{}" } },
        ],
      },
    });
    expect(res.status).toBeLessThan(300);
    const jobs = (await json(await api("/v1/chats/appr-4/jobs"))).jobs;
    const [first, second] = jobs;
    expect(first).toMatchObject({ tool_name: "other", waiting_for: "approval" });
    expect(second).toMatchObject({ tool_name: "hang_write", waiting_for: "tier" });
    await new Promise((r) => setTimeout(r, 300));
    expect(await toolCalls(second.job_id)).toEqual([]);
    await decide("appr-4", first.job_id, { decision: "approve" });
    await eventually(async () => ((await record("appr-4", second.job_id)).state === "running" ? true : undefined));
    expect((await record("appr-4", first.job_id)).state).toBe("success");
    await api("/v1/chats/appr-4/parallel", { body: { action: "cancel", job_ids: [second.job_id] } });
  });

  it("list the tenant's pending calls, then the decided ones, newest first; a cancelled wait leaves the pending list", async () => {
    await configure(toolConfig(approvals([{ tools: ["other"] }])));
    const a = (await parallel("appr-5a", { tool_calls: [call("other", { n: 1 })], wait: false })).body.jobs[0];
    const b = (await parallel("appr-5b", { tool_calls: [call("other", { n: 2 })], wait: false })).body.jobs[0];
    const pending = await eventually(async () => {
      const list = await json(await api("/v1/approvals"));
      return list.approvals.length === 2 ? list : undefined;
    });
    expect(pending.approvals.map((e: any) => e.job_id)).toEqual([b.job_id, a.job_id]);
    expect(pending.approvals[0]).toMatchObject({
      chat_id: "appr-5b",
      tool_name: "other",
      tool_args: { n: 2 },
      agent: "default",
      status: "pending",
      decided_at: null,
    });
    await decide("appr-5a", a.job_id, { decision: "deny", by: "carol" });
    await api("/v1/chats/appr-5b/parallel", { body: { action: "cancel", job_ids: [b.job_id] } });
    const decided = await eventually(async () => {
      const list = await json(await api("/v1/approvals?status=decided"));
      return list.approvals.length === 2 ? list : undefined;
    });
    expect(decided.approvals.map((e: any) => [e.job_id, e.status])).toEqual([
      [b.job_id, "cancelled"],
      [a.job_id, "denied"],
    ]);
    expect((await json(await api("/v1/approvals"))).approvals).toEqual([]);
    const paged = await json(await api("/v1/approvals?status=decided&limit=1"));
    expect(paged.approvals).toHaveLength(1);
    const next = await json(
      await api(`/v1/approvals?status=decided&limit=1&cursor=${encodeURIComponent(paged.next_cursor)}`),
    );
    expect(next.approvals.map((e: any) => e.job_id)).toEqual([a.job_id]);
    expect(next.next_cursor).toBeNull();
  });

  it("refuse a rule on `llm` with a reason", async () => {
    const res = await api("/v1/config", { method: "PUT", body: approvals([{ tools: ["llm"] }]) });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await json(res))).toContain("cannot match `llm`");
  });

  it("hold an MCP call whose rule spells it with a dot, as `parallel` accepts it", async () => {
    const pay = { name: "pay", url: `${toolServer()}/mcp/appr-dot`, headers: {} };
    const stored = await configure(toolConfig(approvals([{ tools: ["pay.write_note"] }], { mcp_servers: [pay] })));
    expect(stored.approvals[0].tools).toEqual(["pay__write_note"]);
    const res = await parallel("appr-dot", { tool_calls: [call("pay.write_note", { text: "x" })], wait: false });
    expect(res.body.jobs[0]).toMatchObject({ tool_name: "pay__write_note", state: "pending", waiting_for: "approval" });
    const sent = await (await fetch(`${toolServer()}/__mcp/calls?instance=appr-dot`)).json();
    expect(sent).toEqual([]);
  });

  it("match a document stored before rule names were spelled as calls, by the name calls run as", async () => {
    // As an older version stored it, unchecked, for a tenant this isolate has not read yet.
    const pay = { name: "pay", url: `${toolServer()}/mcp/appr-old`, headers: {} };
    const stored = configSchema.parse({
      ...toolConfig(),
      mcp_servers: [pay],
      approvals: [{ tools: ["pay.write_note"] }],
    });
    await env.TENANT.getByName(tenantName("globex")).putConfig(stored);
    expect((await json(await api("/v1/config", { key: TEST_KEYS.globex }))).approvals[0].tools).toEqual([
      "pay__write_note",
    ]);
    const res = await parallel(
      "appr-old",
      { tool_calls: [call("pay__write_note", { text: "x" })], wait: false },
      { key: TEST_KEYS.globex },
    );
    expect(res.body.jobs[0]).toMatchObject({ state: "pending", waiting_for: "approval" });
  });

  it("refuse a rule that names no tool, offering the near name, and a PATCH that takes a named tool away", async () => {
    const typo = await api("/v1/config", {
      method: "PUT",
      body: toolConfig(approvals([{ tools: ["echo", "othre"] }])),
    });
    expect(typo.status).toBe(400);
    expect((await json(typo)).error.message).toContain(
      'approvals.0.tools: "othre" matches no tool (did you mean "other"?)',
    );
    const flow = await api("/v1/config", {
      method: "PUT",
      body: toolConfig({ flow: [{ name: "f", tools: ["Send-Email"], concurrency: 1 }] }),
    });
    expect(flow.status).toBe(400);
    expect((await json(flow)).error.message).toContain('flow.0.tools: "Send-Email" matches no tool');

    await configure(toolConfig(approvals([{ tools: ["other"] }])));
    const tools = (await json(await api("/v1/config"))).tools.filter((t: { name: string }) => t.name !== "other");
    const patch = await api("/v1/config", { method: "PATCH", body: { tools } });
    expect(patch.status).toBe(400);
    expect((await json(patch)).error.message).toContain('approvals.0.tools: "other" matches no tool');
    expect((await json(await api("/v1/config"))).tools.map((t: { name: string }) => t.name)).toContain("other");
  });

  it("take exactly one of two rival decisions sent at once, and keep it across an eviction", async () => {
    await configure(toolConfig(approvals([{ tools: ["other"] }])));
    const held = (await parallel("appr-6", { tool_calls: [call("other")], wait: false })).body.jobs[0];
    // The object is evicted between the request and the decision: the call still waits, nothing sent.
    await abortAllDurableObjects();
    expect(await record("appr-6", held.job_id)).toMatchObject({ state: "pending", waiting_for: "approval" });
    const [approve, deny] = await Promise.all([
      decide("appr-6", held.job_id, { decision: "approve" }),
      decide("appr-6", held.job_id, { decision: "deny" }),
    ]);
    expect([approve.status, deny.status].sort()).toEqual([200, 409]);
    const winner = approve.status === 200 ? "approved" : "denied";
    await eventually(async () => {
      const r = await record("appr-6", held.job_id);
      return r.state !== "pending" && r.state !== "running" ? r : undefined;
    });
    await abortAllDurableObjects();
    const after = await record("appr-6", held.job_id);
    expect(after.approval.status).toBe(winner);
    expect((await decide("appr-6", held.job_id, { decision: winner === "approved" ? "approve" : "deny" })).status).toBe(
      200,
    );
    expect(after.state).toBe(winner === "approved" ? "success" : "error");
    expect(await toolCalls(held.job_id)).toHaveLength(winner === "approved" ? 1 : 0);
  });

  it("ask about a subagent's call through the bot's webhook, child chat or not, and keep the subagent from idling meanwhile", async () => {
    const hook = await inbox("appr-7");
    await configure(
      agentConfig("m-appr", {
        webhook: { url: hook, secret: "whsec_dGVzdC13ZWJob29rLXNlY3JldC0xMjM0NTY3OA==" },
        approvals: [{ tools: ["other"], agents: ["default"] }],
        limits: { subagent_idle_seconds: 1 },
      }),
    );
    await scriptLlm("m-appr", [{ tool_calls: [{ name: "other", arguments: { amount: 5 } }] }, { content: "Paid." }]);
    const parent = (
      await parallel("appr-7", {
        tool_calls: [call("call_subordinate", { message: "Pay the invoice.", reset: true })],
        wait: false,
      })
    ).body.jobs[0];
    const asked = await eventually(async () =>
      (await events("appr-7")).find((e) => e.type === "job.approval_requested"),
    );
    expect(asked.data).toMatchObject({
      tool_name: "other",
      tool_args: { amount: 5 },
      root_chat_id: "appr-7",
      agent: "default",
      waiting_for: "approval",
    });
    expect(asked.data.chat_id).not.toBe("appr-7");
    // Longer than subagent_idle_seconds: a subagent waiting for a person is not idle.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await record("appr-7", parent.job_id)).state).toBe("running");
    const pending = await eventually(async () => {
      const list = await json(await api("/v1/approvals"));
      return list.approvals.length ? list : undefined;
    });
    expect(pending.approvals[0]).toMatchObject({
      chat_id: asked.data.chat_id,
      job_id: asked.data.job_id,
      agent: "default",
    });
    expect((await decide(asked.data.chat_id, asked.data.job_id, { decision: "approve", by: "dana" })).status).toBe(200);
    const done = await eventually(async () => {
      const r = await record("appr-7", parent.job_id);
      return r.state === "success" ? r : undefined;
    });
    expect(done.result).toBe("Paid.");
    expect(await llmRequests("m-appr")).toHaveLength(2);
  });

  it("end the wait when the chat is deleted: the tenant's list forgets it", async () => {
    await configure(toolConfig(approvals([{ tools: ["other"] }])));
    const held = (await parallel("appr-8", { tool_calls: [call("other")], wait: false })).body.jobs[0];
    await eventually(async () => ((await json(await api("/v1/approvals"))).approvals.length === 1 ? true : undefined));
    expect((await api("/v1/chats/appr-8", { method: "DELETE" })).status).toBe(200);
    expect((await json(await api("/v1/approvals"))).approvals).toEqual([]);
    expect(await toolCalls(held.job_id)).toEqual([]);
  });
});
