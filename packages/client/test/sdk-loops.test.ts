/**
 * Two-turn agent loops through the real SDKs (openai, the AI SDK with its
 * openai-compatible provider, @anthropic-ai/sdk) against a local stand-in of
 * their model APIs (./fake-models.ts) and the real service: the model asks for
 * tool calls, fanout runs them, a helper hands the results back in the SDK's
 * own types, and the model's second turn shows what it was given, call by call.
 * The tools of `GET /v1/tools` reach each SDK's model through the tool helpers.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { generateText, jsonSchema, tool, type ModelMessage } from "ai";
import OpenAI from "openai";
import { beforeEach, describe, expect, inject, it } from "vitest";
import {
  toAiSdkToolResults,
  toAiSdkTools,
  toAnthropicTools,
  toAnthropicToolResults,
  toGeminiTools,
  toOpenAIToolMessages,
  type FanoutEvent,
  type ToolsAnswer,
} from "../src/index.js";
import type { Offered, Returned } from "./fake-models.js";
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
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: "user", content: ASK(WITH_UNKNOWN) },
    ];
    const first = (await openai().chat.completions.create({ model: "fake", messages })).choices[0]!.message;
    messages.push(first);
    const answer = await client().toolCalls(chat("openai"), { tool_calls: first.tool_calls });
    messages.push(...toOpenAIToolMessages(answer));
    const second = (await openai().chat.completions.create({ model: "fake", messages })).choices[0]!.message;
    expectAnswered(
      JSON.parse(second.content!),
      first.tool_calls!.map((c) => c.id),
      true,
    );
  });

  it("message.tool_calls through /parallel, back from the results payload", async () => {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: "user", content: ASK(CALLS) }];
    const first = (await openai().chat.completions.create({ model: "fake", messages })).choices[0]!.message;
    messages.push(first);
    const results = await client().parallel(chat("openai-parallel"), { tool_calls: first.tool_calls, timeout: 10 });
    if (results.status === "started") throw new Error("a waited call answers results");
    messages.push(...toOpenAIToolMessages(results));
    const second = (await openai().chat.completions.create({ model: "fake", messages })).choices[0]!.message;
    expectAnswered(
      JSON.parse(second.content!),
      first.tool_calls!.map((c) => c.id),
    );
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
    for await (const event of stream)
      if (event.type === "batch.finished") (finished = event as typeof finished), stream.close();
    messages.push(...toOpenAIToolMessages(finished!));
    const second = (await openai().chat.completions.create({ model: "fake", messages })).choices[0]!.message;
    expectAnswered(
      JSON.parse(second.content!),
      first.tool_calls!.map((c) => c.id),
    );
  });

  it("handed over by /tool-calls with wait: false and its context, continued from batch.finished alone", async () => {
    const id = chat("openai-turn");
    const fanout = client();
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: "user", content: ASK(CALLS) }];
    const first = (await openai().chat.completions.create({ model: "fake", messages })).choices[0]!.message;
    const stream = await fanout.events(id);
    const started = await fanout.toolCalls(id, {
      tool_calls: first.tool_calls,
      wait: false,
      context: { messages, message: first },
    });
    expect(started.status).toBe("started");
    expect(started.results.map((r) => r.tool_call_id)).toEqual(first.tool_calls!.map((c) => c.id));
    let finished: Extract<FanoutEvent, { type: "batch.finished" }> | undefined;
    for await (const event of stream)
      if (event.type === "batch.finished") (finished = event as typeof finished), stream.close();
    // The bot kept nothing: the conversation and the assistant message come back with the results.
    const context = finished!.data.context as {
      messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[];
      message: OpenAI.Chat.Completions.ChatCompletionMessage;
    };
    // The batch's record says the same until it is purged.
    const record = await fanout.batch(id, started.batch_id!);
    expect(record.state).toBe("success");
    expect(record.jobs.map((j) => j.tool_call_id)).toEqual(first.tool_calls!.map((c) => c.id));
    expect(record.context).toEqual(JSON.parse(JSON.stringify({ messages, message: first })));
    const next = [...context.messages, context.message, ...toOpenAIToolMessages(finished!)];
    const second = (await openai().chat.completions.create({ model: "fake", messages: next })).choices[0]!.message;
    expectAnswered(
      JSON.parse(second.content!),
      first.tool_calls!.map((c) => c.id),
    );
  });
});

describe("the AI SDK", () => {
  it("result.toolCalls through /tool-calls, back as tool-result parts", async () => {
    const model = createOpenAICompatible({ name: "fake", baseURL: `${models()}/v1`, apiKey: "sk-local" })("fake");
    // No `execute`: the bot runs the calls through fanout, not in-process.
    const anyArgs = jsonSchema<Record<string, unknown>>({ type: "object", additionalProperties: true });
    const tools = {
      wait: tool({ description: "Wait.", inputSchema: anyArgs }),
      nope: tool({ description: "Unknown to fanout.", inputSchema: anyArgs }),
    };
    const messages: ModelMessage[] = [{ role: "user", content: ASK(WITH_UNKNOWN) }];
    const first = await generateText({ model, tools, messages });
    expect(first.toolCalls).toHaveLength(3);
    const answer = await client().toolCalls(chat("ai-sdk"), { tool_calls: first.toolCalls });
    messages.push(...first.response.messages, { role: "tool", content: toAiSdkToolResults(answer) });
    const second = await generateText({ model, tools, messages });
    expectAnswered(
      JSON.parse(second.text),
      first.toolCalls.map((c) => c.toolCallId),
      true,
    );
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
    messages.push(
      { role: "assistant", content: first.content },
      { role: "user", content: toAnthropicToolResults(answer) },
    );
    const second = await anthropic().messages.create({ model: "fake", max_tokens: 256, messages });
    const text = second.content.find((block) => block.type === "text")!.text;
    const returned: Returned[] = JSON.parse(text);
    expectAnswered(
      returned,
      uses.map((u) => u.id),
      true,
    );
    expect(returned.map((r) => r.is_error === true)).toEqual([false, false, true]);
  });

  it("tool_use blocks through /parallel, back from the results payload", async () => {
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: ASK(CALLS) }];
    const first = await anthropic().messages.create({ model: "fake", max_tokens: 256, messages });
    const uses = first.content.filter((block) => block.type === "tool_use");
    const results = await client().parallel(chat("anthropic-parallel"), { tool_calls: uses, timeout: 10 });
    if (results.status === "started") throw new Error("a waited call answers results");
    messages.push(
      { role: "assistant", content: first.content },
      { role: "user", content: toAnthropicToolResults(results) },
    );
    const second = await anthropic().messages.create({ model: "fake", max_tokens: 256, messages });
    expectAnswered(
      JSON.parse(second.content.find((block) => block.type === "text")!.text),
      uses.map((u) => u.id),
    );
  });
});

describe("tool definitions from GET /v1/tools, through each SDK", () => {
  // A tenant tool whose schema leaves out `type`, as a configuration may; every SDK is given an object schema.
  const lookup = {
    name: "lookup",
    description: "Look a word up.",
    url: "https://tools.example/lookup",
    parameters: { properties: { q: { type: "string" } }, required: ["q"] },
  };
  let defined: ToolsAnswer;
  beforeEach(async () => {
    await configure({ tools: [lookup] });
    defined = await client().tools();
  });
  const NO_CALLS = "[]"; // the fake model then answers the tools it was offered

  /** What every model should have been offered: fanout's definitions, each an object schema. */
  const expected = (more: Record<string, unknown> = {}) =>
    defined.tools.map((t) => ({
      name: t.function.name,
      description: t.function.description,
      schema: { ...t.function.parameters, type: "object", ...more },
    }));

  it("openai takes the answer as it is", async () => {
    const openai = new OpenAI({ apiKey: "sk-local", baseURL: `${models()}/v1` });
    const reply = await openai.chat.completions.create({
      model: "fake",
      messages: [{ role: "user", content: NO_CALLS }],
      tools: defined.tools,
    });
    const seen: Offered[] = JSON.parse(reply.choices[0]!.message.content!);
    expect(seen).toEqual(
      defined.tools.map((t) => ({
        name: t.function.name,
        description: t.function.description,
        schema: t.function.parameters,
      })),
    );
    expect(seen.find((t) => t.name === "lookup")!.schema).toEqual(lookup.parameters);
  });

  it("toAnthropicTools: input_schema, always of type object", async () => {
    const anthropic = new Anthropic({ apiKey: "sk-ant-local", baseURL: models() });
    const reply = await anthropic.messages.create({
      model: "fake",
      max_tokens: 256,
      messages: [{ role: "user", content: NO_CALLS }],
      tools: toAnthropicTools(defined),
    });
    const seen: Offered[] = JSON.parse(reply.content.find((block) => block.type === "text")!.text);
    expect(seen).toEqual(expected());
    expect(seen.find((t) => t.name === "lookup")!.schema).toEqual({ type: "object", ...lookup.parameters });
  });

  it("toAiSdkTools: a tool set the AI SDK turns into JSON Schema, and runs nothing itself", async () => {
    const model = createOpenAICompatible({ name: "fake", baseURL: `${models()}/v1`, apiKey: "sk-local" })("fake");
    const tools = toAiSdkTools(defined);
    const seen: Offered[] = JSON.parse(
      (await generateText({ model, tools, messages: [{ role: "user", content: NO_CALLS }] })).text,
    );
    expect(seen.map((t) => t.name)).toEqual(defined.tools.map((t) => t.function.name));
    // The AI SDK closes every object schema (`additionalProperties: false`); the rest arrives as fanout wrote it.
    expect(seen.find((t) => t.name === "lookup")).toEqual({
      name: "lookup",
      description: lookup.description,
      schema: { type: "object", ...lookup.parameters, additionalProperties: false },
    });
    // A second request reads the schema afresh: the SDK's edits never reach the definitions.
    await generateText({ model, tools, messages: [{ role: "user", content: NO_CALLS }] });
    expect(defined.tools.find((t) => t.function.name === "lookup")!.function.parameters).toEqual(lookup.parameters);
    // A call the model makes reaches the bot unchecked by the SDK (fanout checks it when the bot hands it over).
    const first = await generateText({
      model,
      tools,
      messages: [{ role: "user", content: ASK([{ name: "lookup", input: { q: 1 } }]) }],
    });
    expect(first.toolCalls.map((c) => [c.toolName, c.input])).toEqual([["lookup", { q: 1 }]]);
  });

  it("toGeminiTools: one tool of function declarations with parametersJsonSchema", async () => {
    const gemini = new GoogleGenAI({ apiKey: "local", httpOptions: { baseUrl: models() } });
    const reply = await gemini.models.generateContent({
      model: "fake",
      contents: NO_CALLS,
      config: { tools: toGeminiTools(defined) },
    });
    expect(JSON.parse(reply.text!)).toEqual(expected());
  });
});
