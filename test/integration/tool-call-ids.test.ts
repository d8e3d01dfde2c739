/**
 * Each call's own id on everything that reports its job (docs/api.md#arguments-and-call-shapes,
 * docs/api.md#payloads, docs/api.md#events-and-webhooks),
 * for the tool-call shapes of every SDK a bot may use: the AI SDK's calls come
 * from a real `generateText` against the fake LLM, Anthropic's and Gemini's are
 * typed with their SDKs' own types. A webhook-driven bot then answers its model
 * from any one payload, with no job → call map of its own.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type Anthropic from "@anthropic-ai/sdk";
import type { Part } from "@google/genai";
import { generateText, jsonSchema, tool } from "ai";
import { reset, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { ToolCallsBody } from "../../packages/client/src/types";
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
  toolConfig,
  toolServer,
} from "../helpers";
import { inbox, received as deliveries, SECRET } from "../webhook-inbox";

afterEach(() => reset());

/** The tool calls the AI SDK hands a bot for a model reply that calls `echo` with each of `args`. */
async function aiSdkCalls(model: string, args: Record<string, unknown>[]) {
  await scriptLlm(model, [{ tool_calls: args.map((a) => ({ name: "echo", arguments: a })) }]);
  const provider = createOpenAICompatible({ name: "fake", baseURL: `${toolServer()}/llm/v1`, apiKey: "sk-test" });
  const { toolCalls } = await generateText({
    model: provider.chatModel(model),
    prompt: "Echo twice.",
    tools: {
      echo: tool({ description: "Echoes", inputSchema: jsonSchema<Record<string, unknown>>({ type: "object" }) }),
    },
  });
  expect(toolCalls.map((c) => [c.type, c.toolName])).toEqual(args.map(() => ["tool-call", "echo"]));
  return toolCalls;
}

const openaiCall = (id: string, args: unknown) => ({
  id,
  type: "function",
  function: { name: "echo", arguments: JSON.stringify(args) },
});
const anthropicBlock = (id: string, input: Record<string, unknown>, name = "echo") =>
  ({ type: "tool_use", id, name, input, caller: { type: "direct" } }) satisfies Anthropic.ToolUseBlock;
const geminiPart = (id: string | undefined, args: Record<string, unknown>) =>
  ({ functionCall: { name: "echo", args, ...(id ? { id } : {}) } }) satisfies Part;

describe("a /parallel batch of every SDK's tool calls", () => {
  it("runs them all, and every snapshot carries its call's id right after tool_name", async () => {
    await configure(agentConfig("m-ids-batch"));
    const fromAiSdk = await aiSdkCalls("m-ids-batch", [{ n: 3 }, { n: 4 }]);
    const { status, body } = await parallel("ids1", {
      tool_calls: [
        openaiCall("call_openai_1", { n: 1 }),
        anthropicBlock("toolu_01XYZ", { n: 2 }),
        ...fromAiSdk,
        geminiPart("gemini-5", { n: 5 }),
        { function_call: { name: "echo", args: { n: 6 } } },
        { tool_name: "echo", tool_args: { n: 7 }, tool_call_id: "explicit-7" },
      ],
      timeout: 20,
    });
    expect(status).toBe(200);
    expect(body.status).toBe("success");
    const ids = [
      "call_openai_1",
      "toolu_01XYZ",
      fromAiSdk[0]!.toolCallId,
      fromAiSdk[1]!.toolCallId,
      "gemini-5",
      undefined,
      "explicit-7",
    ];
    expect(body.jobs.map((j: any) => j.tool_call_id)).toEqual(ids);
    expect(body.jobs.map((j: any) => JSON.parse(j.result).n)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(Object.keys(body.jobs[0])).toEqual([
      "job_id",
      "tool_name",
      "tool_call_id",
      "state",
      "duration_seconds",
      "result",
    ]);
    expect(Object.keys(body.jobs[5])).toEqual(["job_id", "tool_name", "state", "duration_seconds", "result"]);
  });

  it("keeps the ids on the started payload, a later await, the job list, the full record and an idempotent replay", async () => {
    await configure(toolConfig());
    const request = {
      tool_calls: [anthropicBlock("toolu_hang", {}, "hang"), anthropicBlock("toolu_echo", { x: 1 })],
      wait: false,
    };
    const headers = { "idempotency-key": "ids-replay-1" };
    const started = await parallel("ids2", request, { headers });
    expect(started.body.status).toBe("started");
    expect(started.body.jobs.map((j: any) => j.tool_call_id)).toEqual(["toolu_hang", "toolu_echo"]);
    const [hang, echo] = started.body.jobs.map((j: any) => j.job_id as string);

    const replay = await parallel("ids2", request, { headers });
    expect(replay.body.jobs.map((j: any) => [j.job_id, j.tool_call_id])).toEqual([
      [hang, "toolu_hang"],
      [echo, "toolu_echo"],
    ]);
    const listed = await json(await api("/v1/chats/ids2/jobs"));
    expect(listed.jobs.map((j: any) => j.tool_call_id)).toEqual(["toolu_hang", "toolu_echo"]);
    const awaited = await parallel("ids2", { action: "await", job_ids: [echo], timeout: 10 });
    expect(awaited.body.jobs[0]).toMatchObject({ job_id: echo, tool_call_id: "toolu_echo", state: "success" });

    const record = await json(await api(`/v1/chats/ids2/jobs/${echo}`));
    expect(record.tool_call_id).toBe("toolu_echo");
    expect(Object.keys(record).slice(4, 7)).toEqual(["tool_name", "tool_call_id", "tool_args"]);
    const stored = await runInDurableObject(chatObject("ids2"), (_i, s) =>
      s.storage.sql.exec("SELECT tool_call_id FROM jobs ORDER BY idx").toArray(),
    );
    expect(stored.map((r) => r.tool_call_id)).toEqual(["toolu_hang", "toolu_echo"]);
    await parallel("ids2", { action: "cancel", job_ids: [hang] });
  });

  it("gives a call with an unusable id (too long) no tool_call_id, and still runs it", async () => {
    await configure(toolConfig());
    const { body } = await parallel("ids3", {
      tool_calls: [openaiCall("c".repeat(129), { a: 1 }), openaiCall("c".repeat(128), { a: 2 })],
    });
    expect(body.jobs.map((j: any) => [j.state, j.tool_call_id])).toEqual([
      ["success", undefined],
      ["success", "c".repeat(128)],
    ]);
    const record = await json(await api(`/v1/chats/ids3/jobs/${body.jobs[0].job_id}`));
    expect(record.tool_call_id).toBeNull();
  });
});

describe("events carry the call's id", () => {
  const received = async (name: string) => (await deliveries(name)).map((d) => JSON.parse(d.body));

  it("in batch.finished results, job.started, job.finished and the subagent events, as delivered to the webhook", async () => {
    const url = await inbox("ids-events");
    await configure(agentConfig("m-ids-events", { webhook: { url, secret: SECRET } }));
    await scriptLlm("m-ids-events", [{ content: "sub done" }]);
    const { body } = await parallel("ids4", {
      tool_calls: [
        openaiCall("call_e1", { k: 1 }),
        { type: "tool-call", toolCallId: "call_sub", toolName: "spawn_task", input: { task: "Say done." } },
        call("echo", { k: 3 }),
      ],
      timeout: 20,
    });
    expect(body.status).toBe("success");
    const events = await eventually(async () => {
      const list = await received("ids-events");
      return list.some((e) => e.type === "batch.finished") && list.some((e) => e.type === "subagent.finish")
        ? list
        : undefined;
    });
    const batch = events.find((e) => e.type === "batch.finished")!;
    expect(batch.data.results.jobs.map((j: any) => j.tool_call_id)).toEqual(["call_e1", "call_sub", undefined]);
    expect(Object.keys(batch.data.results.jobs[0]).slice(0, 4)).toEqual([
      "job_id",
      "tool_name",
      "tool_call_id",
      "state",
    ]);

    const byJob = (type: string) => new Map(events.filter((e) => e.type === type).map((e) => [e.data.job_id, e.data]));
    const [first, sub, third] = body.jobs.map((j: any) => j.job_id);
    for (const type of ["job.started", "job.finished"]) {
      const seen = byJob(type);
      expect([seen.get(first)?.tool_call_id, seen.get(sub)?.tool_call_id, seen.get(third)?.tool_call_id], type).toEqual(
        ["call_e1", "call_sub", undefined],
      );
      expect("tool_call_id" in seen.get(third)!).toBe(false);
    }
    expect(Object.keys(byJob("job.started").get(first)!).slice(-5)).toEqual([
      "seq",
      "job_id",
      "batch_id",
      "tool_name",
      "tool_call_id",
    ]);
    const finishedKeys = Object.keys(byJob("job.finished").get(first)!);
    expect(finishedKeys.indexOf("tool_call_id")).toBe(finishedKeys.indexOf("tool_name") + 1);
    for (const type of ["subagent.started", "subagent.finish"]) {
      const data = byJob(type).get(sub)!;
      expect(data.tool_call_id, type).toBe("call_sub");
      expect(Object.keys(data).indexOf("tool_call_id")).toBe(Object.keys(data).indexOf("job_id") + 1);
    }
  });
});

describe("/tool-calls answers every call under its own id", () => {
  const post = async (chat: string, body: unknown) => json(await api(`/v1/chats/${chat}/tool-calls`, { body }));

  it("for the AI SDK's calls, as generateText returns them", async () => {
    await configure(agentConfig("m-ids-tc"));
    const fromAiSdk = await aiSdkCalls("m-ids-tc", [{ a: 1 }, { a: 2 }]);
    const body: ToolCallsBody = { tool_calls: fromAiSdk, timeout: 20 }; // the client's types take them as they are
    const answer = await post("ids5", body);
    expect(answer.status).toBe("success");
    expect(answer.results.map((r: any) => [r.tool_call_id, r.name, r.state, JSON.parse(r.content).a])).toEqual([
      [fromAiSdk[0]!.toolCallId, "echo", "success", 1],
      [fromAiSdk[1]!.toolCallId, "echo", "success", 2],
    ]);
    const snapshots = await parallel("ids5", { action: "await", job_ids: answer.results.map((r: any) => r.job_id) });
    expect(snapshots.body.jobs.map((j: any) => j.tool_call_id)).toEqual(fromAiSdk.map((c) => c.toolCallId));
  });

  it("for Anthropic tool_use blocks, a malformed one and an unknown tool included; only an id-less call gets a made-up one", async () => {
    await configure(toolConfig());
    const blocks: Anthropic.ToolUseBlock[] = [anthropicBlock("toolu_a", { a: 1 })];
    blocks satisfies ToolCallsBody; // the client's types take the SDK's blocks as they are
    const answer = await post("ids6", [
      ...blocks,
      { type: "tool_use", id: "toolu_bad", name: "echo", input: "not json" },
      anthropicBlock("toolu_unknown", {}, "nope"),
      { type: "tool-call", toolCallId: "ai_1", toolName: "echo", input: { a: 4 } },
      { functionCall: { name: "echo", args: { a: 5 } } },
    ]);
    expect(answer.results.map((r: any) => [r.tool_call_id, r.name, r.state])).toEqual([
      ["toolu_a", "echo", "success"],
      ["toolu_bad", "echo", "error"],
      ["toolu_unknown", "nope", "error"],
      ["ai_1", "echo", "success"],
      ["call_4", "echo", "success"],
    ]);
    expect(answer.results[1].error.code).toBe("invalid_tool_calls");
  });

  it("echoes an id too long to keep on the job, so the bot's tool message still names its call", async () => {
    await configure(toolConfig());
    const long = `call_${"x".repeat(200)}`;
    const answer = await post("ids7", { tool_calls: [openaiCall(long, { a: 1 })] });
    expect(answer.results[0]).toMatchObject({ tool_call_id: long, state: "success" });
    const record = await json(await api(`/v1/chats/ids7/jobs/${answer.results[0].job_id}`));
    expect(record.tool_call_id).toBeNull();
  });
});

describe("the agent loop inside a child chat", () => {
  it("keeps the model's tool-call ids on the jobs it starts", async () => {
    await configure(agentConfig("m-ids-loop"));
    await scriptLlm("m-ids-loop", [{ tool_calls: [{ name: "echo", arguments: { q: 1 } }] }, { content: "looped" }]);
    const { body } = await parallel("ids7", { tool_calls: [call("spawn_task", { task: "Echo once." })], timeout: 20 });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "looped" });
    const requests = await llmRequests("m-ids-loop");
    const modelId = requests[1]!.messages.find((m: any) => m.role === "assistant").tool_calls[0].id as string;
    expect(modelId).toMatch(/^call_\d+$/);
    const childJobs = await runInDurableObject(chatObject(body.jobs[0].context_id), (_i, s) =>
      s.storage.sql.exec("SELECT tool_name, tool_call_id FROM jobs").toArray(),
    );
    expect(childJobs).toEqual([{ tool_name: "echo", tool_call_id: modelId }]);
  });
});
