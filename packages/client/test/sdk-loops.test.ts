/**
 * Two-turn agent loops through the real SDKs (openai, the AI SDK with its
 * openai-compatible provider, @anthropic-ai/sdk) against a local stand-in of
 * their model APIs (./fake-models.ts) and the real service: the model asks for
 * tool calls, fanout runs them, a helper hands the results back in the SDK's
 * own types, and the model's second turn shows what it was given, call by call.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import Anthropic from "@anthropic-ai/sdk";
import { generateText, jsonSchema, tool, type ModelMessage } from "ai";
import OpenAI from "openai";
import { beforeEach, describe, expect, inject, it } from "vitest";
import { toAiSdkToolResults, toAnthropicToolResults, toOpenAIToolMessages, type FanoutEvent } from "../src/index.js";
import type { Returned } from "./fake-models.js";
import { chat, client, configure } from "./helpers.js";

const models = () => inject("modelsUrl");

beforeEach(() => configure({ limits: { max_wait_seconds: 5 } }));

/** What the model is to ask for: two tools that run, and one fanout does not know. */
const CALLS = [
  { name: "wait", input: { seconds: 0.01 } },
  { name: "wait", input: { seconds: 0.02 } },
];
const WITH_UNKNOWN = [...CALLS, { name: "nope", input: {} }];
const ASK = (calls: unknown[]) => JSON.stringify(calls);

/** The second turn answered with what came back: each call's id, in call order, with its content. */
function expectAnswered(returned: Returned[], ids: string[], unknown = false) {
  expect(returned.map((r) => r.id)).toEqual(ids);
  for (const r of returned.slice(0, 2)) expect(String(r.content)).not.toMatch(/^Error:/);
  if (unknown) expect(String(returned[2]!.content)).toMatch(/^Error: .*unknown tool 'nope'/);
}

describe("openai", () => {
  const openai = () => new OpenAI({ apiKey: "sk-local", baseURL: `${models()}/v1` });

  it("message.tool_calls through /tool-calls, back as tool messages", async () => {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: "user", content: ASK(WITH_UNKNOWN) }];
    const first = (await openai().chat.completions.create({ model: "fake", messages })).choices[0]!.message;
    messages.push(first);
    const answer = await client().toolCalls(chat("openai"), { tool_calls: first.tool_calls });
    messages.push(...toOpenAIToolMessages(answer));
    const second = (await openai().chat.completions.create({ model: "fake", messages })).choices[0]!.message;
    expectAnswered(JSON.parse(second.content!), first.tool_calls!.map((c) => c.id), true);
  });

  it("message.tool_calls through /parallel, back from the results payload", async () => {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: "user", content: ASK(CALLS) }];
    const first = (await openai().chat.completions.create({ model: "fake", messages })).choices[0]!.message;
    messages.push(first);
    const results = await client().parallel(chat("openai-parallel"), { tool_calls: first.tool_calls, timeout: 10 });
    if (results.status === "started") throw new Error("a waited call answers results");
    messages.push(...toOpenAIToolMessages(results));
    const second = (await openai().chat.completions.create({ model: "fake", messages })).choices[0]!.message;
    expectAnswered(JSON.parse(second.content!), first.tool_calls!.map((c) => c.id));
  });

  it("started with wait: false, back from the batch.finished event", async () => {
    const id = chat("openai-event");
    const fanout = client();
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: "user", content: ASK(CALLS) }];
    const first = (await openai().chat.completions.create({ model: "fake", messages })).choices[0]!.message;
    messages.push(first);
    const stream = await fanout.events(id);
    await fanout.parallel(id, { tool_calls: first.tool_calls, wait: false });
    let finished: Extract<FanoutEvent, { type: "batch.finished" }> | undefined;
    for await (const event of stream) if (event.type === "batch.finished") (finished = event as typeof finished), stream.close();
    messages.push(...toOpenAIToolMessages(finished!));
    const second = (await openai().chat.completions.create({ model: "fake", messages })).choices[0]!.message;
    expectAnswered(JSON.parse(second.content!), first.tool_calls!.map((c) => c.id));
  });
});

describe("the AI SDK", () => {
  it("result.toolCalls through /tool-calls, back as tool-result parts", async () => {
    const model = createOpenAICompatible({ name: "fake", baseURL: `${models()}/v1`, apiKey: "sk-local" })("fake");
    // No `execute`: the bot runs the calls through fanout, not in-process.
    const anyArgs = jsonSchema<Record<string, unknown>>({ type: "object", additionalProperties: true });
    const tools = { wait: tool({ description: "Wait.", inputSchema: anyArgs }), nope: tool({ description: "Unknown to fanout.", inputSchema: anyArgs }) };
    const messages: ModelMessage[] = [{ role: "user", content: ASK(WITH_UNKNOWN) }];
    const first = await generateText({ model, tools, messages });
    expect(first.toolCalls).toHaveLength(3);
    const answer = await client().toolCalls(chat("ai-sdk"), { tool_calls: first.toolCalls });
    messages.push(...first.response.messages, { role: "tool", content: toAiSdkToolResults(answer) });
    const second = await generateText({ model, tools, messages });
    expectAnswered(JSON.parse(second.text), first.toolCalls.map((c) => c.toolCallId), true);
  });
});

describe("Anthropic", () => {
  const anthropic = () => new Anthropic({ apiKey: "sk-ant-local", baseURL: models() });

  it("tool_use blocks through /tool-calls, back as tool_result blocks with is_error", async () => {
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: ASK(WITH_UNKNOWN) }];
    const first = await anthropic().messages.create({ model: "fake", max_tokens: 256, messages });
    const uses = first.content.filter((block) => block.type === "tool_use");
    expect(uses).toHaveLength(3);
    const answer = await client().toolCalls(chat("anthropic"), { tool_calls: uses });
    messages.push({ role: "assistant", content: first.content }, { role: "user", content: toAnthropicToolResults(answer) });
    const second = await anthropic().messages.create({ model: "fake", max_tokens: 256, messages });
    const text = second.content.find((block) => block.type === "text")!.text;
    const returned: Returned[] = JSON.parse(text);
    expectAnswered(returned, uses.map((u) => u.id), true);
    expect(returned.map((r) => r.is_error === true)).toEqual([false, false, true]);
  });

  it("tool_use blocks through /parallel, back from the results payload", async () => {
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: ASK(CALLS) }];
    const first = await anthropic().messages.create({ model: "fake", max_tokens: 256, messages });
    const uses = first.content.filter((block) => block.type === "tool_use");
    const results = await client().parallel(chat("anthropic-parallel"), { tool_calls: uses, timeout: 10 });
    if (results.status === "started") throw new Error("a waited call answers results");
    messages.push({ role: "assistant", content: first.content }, { role: "user", content: toAnthropicToolResults(results) });
    const second = await anthropic().messages.create({ model: "fake", max_tokens: 256, messages });
    expectAnswered(JSON.parse(second.content.find((block) => block.type === "text")!.text), uses.map((u) => u.id));
  });
});
