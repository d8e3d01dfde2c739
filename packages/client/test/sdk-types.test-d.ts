/**
 * Type-level tests, checked by `npm run typecheck` and never run: what the
 * SDKs' own types produce goes into the client as it is (the docs' snippets),
 * and what the result helpers give back goes into the SDKs as it is. A type
 * that stops fitting fails the typecheck; `@ts-expect-error` lines fail it
 * when the client's types turn too loose to catch a mistake.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { GoogleGenAI, Tool as GeminiSdkTool } from "@google/genai";
import { generateText, jsonSchema, tool, type LanguageModel, type ModelMessage, type ToolModelMessage } from "ai";
import type OpenAI from "openai";
import type OpenAI6 from "openai-v6";
import {
  toAiSdkToolResults,
  toAiSdkTools,
  toAnthropicToolResults,
  toAnthropicTools,
  toGeminiTools,
  toOpenAIToolMessages,
  type Fanout,
  type FanoutEvent,
  type StreamMessage,
} from "../src/index.js";

declare const fanout: Fanout;
declare const chatId: string;

export async function openai7(
  message: OpenAI.Chat.Completions.ChatCompletionMessage,
  messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[],
) {
  // `message.tool_calls` is `Array<function | custom tool call> | undefined`.
  const answer = await fanout.toolCalls(chatId, { tool_calls: message.tool_calls });
  messages.push(...toOpenAIToolMessages(answer));
  await fanout.toolCalls(chatId, message.tool_calls ?? []);
  const results = await fanout.parallel(chatId, { tool_calls: message.tool_calls });
  if (results.status !== "started") messages.push(...toOpenAIToolMessages(results));
  const started = await fanout.parallel(chatId, { tool_calls: message.tool_calls, wait: false });
  messages.push(
    ...toOpenAIToolMessages(
      await fanout.awaitJobs(
        chatId,
        started.jobs.map((j) => j.job_id),
      ),
    ),
  );
}

export async function openai6(
  message: OpenAI6.Chat.Completions.ChatCompletionMessage,
  messages: OpenAI6.Chat.Completions.ChatCompletionMessageParam[],
) {
  // openai 6 has `ChatCompletionMessageCustomToolCall` among the calls too.
  const answer = await fanout.toolCalls(chatId, { tool_calls: message.tool_calls });
  messages.push(...toOpenAIToolMessages(answer));
  const one: OpenAI6.Chat.Completions.ChatCompletionToolMessageParam = toOpenAIToolMessages(answer)[0]!;
  void one;
}

export async function anthropic(message: Anthropic.Message, messages: Anthropic.MessageParam[]) {
  const answer = await fanout.toolCalls(chatId, {
    tool_calls: message.content.filter((block) => block.type === "tool_use"),
  });
  messages.push(
    { role: "assistant", content: message.content },
    { role: "user", content: toAnthropicToolResults(answer) },
  );
  const block: Anthropic.ToolResultBlockParam = toAnthropicToolResults(answer)[0]!;
  void block;
}

export async function aiSdk(model: LanguageModel, messages: ModelMessage[]) {
  const tools = {
    wait: tool({
      description: "Wait.",
      inputSchema: jsonSchema<{ seconds: number }>({ type: "object", properties: { seconds: { type: "number" } } }),
    }),
  };
  const result = await generateText({ model, messages, tools });
  const answer = await fanout.toolCalls(chatId, { tool_calls: result.toolCalls });
  messages.push(...result.response.messages, { role: "tool", content: toAiSdkToolResults(answer) });
  const started = await fanout.parallel(chatId, { tool_calls: result.toolCalls, wait: false });
  void started;
}

export function gemini(parts: { functionCall?: { id?: string; name?: string; args?: Record<string, unknown> } }[]) {
  const calls = parts.flatMap((p) => (p.functionCall ? [{ functionCall: p.functionCall }] : []));
  return fanout.toolCalls(chatId, { tool_calls: calls });
}

export function fromEvents(message: StreamMessage, event: FanoutEvent) {
  if (message.type === "batch.finished") {
    const chat: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = toOpenAIToolMessages(message);
    const blocks: Anthropic.ToolResultBlockParam[] = toAnthropicToolResults(message);
    const tool: ToolModelMessage = { role: "tool", content: toAiSdkToolResults(message) };
    void [chat, blocks, tool];
  }
  // @ts-expect-error only a batch.finished event carries results
  toOpenAIToolMessages(event);
}

export async function mistakes() {
  // @ts-expect-error a call needs its name
  await fanout.toolCalls(chatId, { tool_calls: [{ id: "call_1" }] });
  const started = await fanout.parallel(chatId, { tool_calls: [{ tool_name: "wait", tool_args: {} }], wait: false });
  // @ts-expect-error a started payload has no results yet
  toOpenAIToolMessages(started);
}

export async function toolDefinitions(openai: OpenAI, anthropic: Anthropic, gemini: GoogleGenAI, model: LanguageModel) {
  const answer = await fanout.tools("researcher");
  // OpenAI's form as it is, for chat completions.
  const chatTools: OpenAI.Chat.Completions.ChatCompletionTool[] = answer.tools;
  await openai.chat.completions.create({ model: "gpt", messages: [], tools: answer.tools });
  const anthropicTools: Anthropic.Tool[] = toAnthropicTools(answer);
  await anthropic.messages.create({
    model: "claude",
    max_tokens: 1,
    messages: [],
    tools: toAnthropicTools(answer.tools.filter((t) => t.function.name !== "parallel")),
  });
  await generateText({ model, messages: [], tools: toAiSdkTools(answer) });
  await generateText({
    model,
    messages: [],
    tools: {
      ...toAiSdkTools(answer),
      wait: tool({ description: "Wait.", inputSchema: jsonSchema<{ seconds: number }>({ type: "object" }) }),
    },
  });
  const geminiTools: GeminiSdkTool[] = toGeminiTools(answer);
  await gemini.models.generateContent({ model: "gemini", contents: "hi", config: { tools: toGeminiTools(answer) } });
  void [chatTools, anthropicTools, geminiTools];
  // @ts-expect-error the helpers read a tools answer or its list, not a results payload
  toAnthropicTools(await fanout.parallel(chatId, { tool_calls: [] }));
}
