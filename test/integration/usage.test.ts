/**
 * Usage and cost (docs/api.md#usage-and-cost) in the Workers runtime: every job's usage, its own and
 * its subtree's, priced when the tenant gives prices; a batch's in its batch.finished; a chat's and
 * its subtree's by day, which outlives the purge of the jobs it was counted from.
 */
import { reset, runDurableObjectAlarm } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
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
  toolServer,
} from "../helpers";
import { inbox, received, SECRET } from "../webhook-inbox";

afterEach(() => {
  vi.useRealTimers();
  return reset();
});

const prices = { input_per_million: 2.5, output_per_million: 10 };
const today = () => new Date().toISOString().slice(0, 10);

describe("usage", () => {
  it("counts a subagent's model requests, tokens, tool calls and itself, priced, on its job, its batch and its chats", async () => {
    const hook = await inbox("use-1");
    await configure(
      agentConfig("m-use", {
        llm: { base_url: `${toolServer()}/llm/v1`, model: "m-use", api_key: "sk-test", prices },
        webhook: { url: hook, secret: SECRET },
      }),
    );
    // Each fake reply is 10 prompt and 5 completion tokens.
    await scriptLlm("m-use", [{ tool_calls: [{ name: "echo", arguments: { q: 1 } }] }, { content: "Done." }]);
    const res = await parallel("use-1", {
      tool_calls: [call("call_subordinate", { message: "Look it up.", reset: true }), call("echo", { x: 1 })],
      timeout: 30,
    });
    const [sub, tool] = res.body.jobs;
    expect(sub.state).toBe("success");
    // 2 requests × (10 × 2.5 + 5 × 10) / 1e6 = 0.00015 dollars.
    const subtree = {
      llm_calls: 2,
      prompt_tokens: 20,
      completion_tokens: 10,
      tool_calls: 1,
      subagents: 1,
      cost_usd: 0.00015,
    };
    expect(sub.usage).toEqual(subtree);
    expect((await json(await api(`/v1/chats/use-1/jobs/${sub.job_id}`))).usage).toEqual(subtree);
    expect((await json(await api(`/v1/chats/use-1/jobs/${tool.job_id}`))).usage).toEqual({
      llm_calls: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      tool_calls: 1,
      subagents: 0,
    });

    const finished = await eventually(async () =>
      (await received("use-1"))
        .map((r) => JSON.parse(r.body))
        .find((e: any) => e.type === "batch.finished" && e.data.chat_id === "use-1"),
    );
    expect(finished.data.usage).toEqual({ ...subtree, tool_calls: 2 });

    const parent = await json(await api("/v1/chats/use-1/usage"));
    expect(parent).toEqual({
      chat_id: "use-1",
      chat: { llm_calls: 0, prompt_tokens: 0, completion_tokens: 0, tool_calls: 1, subagents: 1 },
      subtree: { ...subtree, tool_calls: 2 },
      by_day: [{ date: today(), usage: { ...subtree, tool_calls: 2 } }],
    });
    const child = await json(await api(`/v1/chats/${sub.context_id}/usage`));
    expect(child.chat).toEqual({
      llm_calls: 2,
      prompt_tokens: 20,
      completion_tokens: 10,
      tool_calls: 1,
      subagents: 0,
      cost_usd: 0.00015,
    });
    expect(child.subtree).toEqual(child.chat);
  });

  it("prices an agent's requests at its own prices, and leaves cost out without any", async () => {
    await configure(
      agentConfig("m-use-2", {
        agents: { pricey: { model: "m-use-2", prices: { input_per_million: 100, output_per_million: 200 } } },
      }),
    );
    await scriptLlm("m-use-2", [{ content: "A." }, { content: "B." }]);
    const res = await parallel("use-2", {
      tool_calls: [
        call("spawn_task", { task: "priced", agent: "pricey", wait: true }),
        call("call_subordinate", { message: "unpriced", reset: true }),
      ],
      timeout: 30,
    });
    const [priced, plain] = res.body.jobs;
    expect(priced.usage).toMatchObject({ llm_calls: 1, cost_usd: 0.002 }); // (10 × 100 + 5 × 200) / 1e6
    expect(plain.usage).not.toHaveProperty("cost_usd");
  });

  it("keeps a chat's usage by day after the jobs it came from are purged, and counts no call that was never made", async () => {
    await configure({
      ...agentConfig("m-use-3"),
      approvals: [{ tools: ["other"] }],
      limits: { retention_seconds: 60 },
    });
    const ran = await parallel("use-3", { tool_calls: [call("echo", { a: 1 }), call("echo", { a: 2 })], timeout: 10 });
    expect(ran.body.status).toBe("success");
    // A call cancelled while it waited for a person was never made: it counts nothing.
    const held = (await parallel("use-3", { tool_calls: [call("other")], wait: false })).body.jobs[0];
    await api("/v1/chats/use-3/parallel", { body: { action: "cancel", job_ids: [held.job_id] } });
    expect((await json(await api(`/v1/chats/use-3/jobs/${held.job_id}`))).usage.tool_calls).toBe(0);
    // One still running keeps the chat (a chat left with nothing goes whole).
    const pending = await parallel("use-3", { tool_calls: [call("hang", { b: 1 })], wait: false });
    const before = await json(await api("/v1/chats/use-3/usage"));
    expect(before.subtree.tool_calls).toBe(2);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61_000);
    await runDurableObjectAlarm(chatObject("use-3"));
    const records = await json(await api("/v1/chats/use-3/job-records"));
    expect(records.records.map((r: any) => r.tool_name)).toEqual(["hang"]); // the others were purged
    const after = await json(await api("/v1/chats/use-3/usage"));
    expect(after.subtree.tool_calls).toBe(2);
    expect(after.by_day.map((d: any) => d.usage.tool_calls)).toEqual([2]);
    vi.useRealTimers();
    await api("/v1/chats/use-3/parallel", { body: { action: "cancel", job_ids: [pending.body.jobs[0].job_id] } });
  });

  it("answers 404 for a chat that does not exist", async () => {
    expect((await api("/v1/chats/no-such-chat/usage")).status).toBe(404);
    expect((await api("/v1/chats/no-such-chat/transcript")).status).toBe(404);
  });

  it("shows a subagent's transcript: each model turn's text and tool calls with what it took, never shown to the model", async () => {
    await configure(agentConfig("m-tr"));
    await scriptLlm("m-tr", [
      { content: "Let me check.", tool_calls: [{ name: "echo", arguments: { q: "tide" } }] },
      { content: "High tide at 6." },
    ]);
    const res = await parallel("tr-1", {
      tool_calls: [call("call_subordinate", { message: "When is high tide?", reset: true })],
      timeout: 30,
    });
    const child = res.body.jobs[0].context_id;
    const { chat_id, messages } = await json(await api(`/v1/chats/${child}/transcript`));
    expect(chat_id).toBe(child);
    const turn = { llm_calls: 1, prompt_tokens: 10, completion_tokens: 5, tool_calls: 0, subagents: 0 };
    expect(messages.map((m: any) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(messages[0]).toMatchObject({ content: "When is high tide?" });
    expect(messages[1]).toMatchObject({
      content: "Let me check.",
      tool_calls: [{ name: "echo", arguments: '{"q":"tide"}' }],
      usage: turn,
    });
    expect(messages[2]).toMatchObject({ tool_call_id: messages[1].tool_calls[0].id, content: '{"q":"tide"}' });
    expect(messages[2]).not.toHaveProperty("usage");
    expect(messages[3]).toMatchObject({ content: "High tide at 6.", usage: turn });
    for (const m of messages) expect(Date.parse(m.at)).not.toBeNaN();
    // The model reads the conversation without it.
    const [, second] = await llmRequests("m-tr");
    expect(JSON.stringify(second!.messages)).not.toContain("usage");
    expect(
      (await json(await api(`/v1/chats/${child}/transcript?limit=1`))).messages.map((m: any) => m.content),
    ).toEqual(["High tide at 6."]);
  });
});
