/** The result helpers on each kind of answer, with the SDKs' own types as the targets. */
import type Anthropic from "@anthropic-ai/sdk";
import type { ToolResultPart } from "ai";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  toAiSdkToolResults,
  toAnthropicToolResults,
  toOpenAIToolMessages,
  type FanoutEvent,
  type JobSnapshot,
  type ResultsPayload,
  type ToolCallsAnswer,
} from "../src/index.js";

const answer: ToolCallsAnswer = {
  status: "partial",
  batch_id: "batch-1",
  results: [
    { tool_call_id: "call_a", name: "wait", job_id: "wait-1", state: "success", content: "waited 1 s" },
    {
      tool_call_id: "call_b",
      name: "nope",
      job_id: null,
      state: "error",
      content: "Error: tool_calls[1] uses unknown tool 'nope'.",
    },
  ],
};

const snapshot = (job: JobSnapshot): JobSnapshot => job;

const results: ResultsPayload = {
  status: "partial",
  jobs: [
    snapshot({
      job_id: "wait-1",
      tool_name: "wait",
      tool_call_id: "toolu_a",
      state: "success",
      duration_seconds: 1,
      result: "waited 1 s",
    }),
    snapshot({
      job_id: "search-2",
      tool_name: "search",
      tool_call_id: "toolu_b",
      state: "timeout",
      duration_seconds: 5,
      error: "Job exceeded its 5 s deadline (job_timeout) and was stopped; its late result was discarded.",
    }),
    snapshot({
      job_id: "fetch-3",
      tool_name: "fetch",
      tool_call_id: "toolu_c",
      state: "cancelled",
      duration_seconds: 0.2,
      error: "Parallel job was cancelled.",
    }),
  ],
};

const source = { tenant: "t", chat_id: "c1", parent_chat_id: null, root_chat_id: "c1", seq: 4, batch_id: "batch-1" };
const event: FanoutEvent = {
  id: "evt_1",
  type: "batch.finished",
  timestamp: "2026-11-30T10:00:00.000Z",
  data: { ...source, results },
};

describe("toOpenAIToolMessages", () => {
  it("answers each call of a /tool-calls answer by its id, in call order", () => {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = toOpenAIToolMessages(answer);
    expect(messages).toEqual([
      { role: "tool", tool_call_id: "call_a", content: "waited 1 s" },
      { role: "tool", tool_call_id: "call_b", content: "Error: tool_calls[1] uses unknown tool 'nope'." },
    ]);
  });

  it("reads a results payload and a batch.finished event alike: results, or `Error: <message>`", () => {
    const expected = [
      { role: "tool", tool_call_id: "toolu_a", content: "waited 1 s" },
      {
        role: "tool",
        tool_call_id: "toolu_b",
        content: "Error: Job exceeded its 5 s deadline (job_timeout) and was stopped; its late result was discarded.",
      },
      { role: "tool", tool_call_id: "toolu_c", content: "Error: Parallel job was cancelled." },
    ];
    expect(toOpenAIToolMessages(results)).toEqual(expected);
    if (event.type === "batch.finished") expect(toOpenAIToolMessages(event)).toEqual(expected);
  });
});

describe("a /tool-calls batch's batch.finished", () => {
  it("answers every call the model made, a refused one too, under the ids it wrote", () => {
    const handed: FanoutEvent = {
      ...event,
      data: {
        ...event.data,
        tool_calls: [
          { tool_call_id: "toolu_a", name: "wait", job_id: "wait-1", state: "success" },
          {
            tool_call_id: "toolu_x",
            name: "nope",
            job_id: null,
            state: "error",
            content: "Error: tool_calls[1] uses unknown tool 'nope'.",
          },
          // A written id too odd to keep on the job: the call is still answered under it.
          { tool_call_id: "toolu_b\u0007", name: "search", job_id: "search-2", state: "timeout" },
        ],
      },
    };
    expect(toAnthropicToolResults(handed)).toEqual([
      { type: "tool_result", tool_use_id: "toolu_a", content: "waited 1 s" },
      {
        type: "tool_result",
        tool_use_id: "toolu_x",
        content: "Error: tool_calls[1] uses unknown tool 'nope'.",
        is_error: true,
      },
      {
        type: "tool_result",
        tool_use_id: "toolu_b\u0007",
        content: expect.stringMatching(/^Error: Job exceeded/),
        is_error: true,
      },
    ]);
  });
});

describe("toAnthropicToolResults", () => {
  it("gives tool_result blocks with is_error on failures only", () => {
    const blocks: Anthropic.ToolResultBlockParam[] = toAnthropicToolResults(results);
    expect(blocks).toEqual([
      { type: "tool_result", tool_use_id: "toolu_a", content: "waited 1 s" },
      {
        type: "tool_result",
        tool_use_id: "toolu_b",
        content: expect.stringMatching(/^Error: Job exceeded/),
        is_error: true,
      },
      { type: "tool_result", tool_use_id: "toolu_c", content: "Error: Parallel job was cancelled.", is_error: true },
    ]);
    expect(toAnthropicToolResults(answer).map((b) => b.is_error)).toEqual([undefined, true]);
  });
});

describe("toAiSdkToolResults", () => {
  it("gives tool-result parts with the tool's name, error-text output on failures", () => {
    const parts: ToolResultPart[] = toAiSdkToolResults(answer);
    expect(parts).toEqual([
      { type: "tool-result", toolCallId: "call_a", toolName: "wait", output: { type: "text", value: "waited 1 s" } },
      {
        type: "tool-result",
        toolCallId: "call_b",
        toolName: "nope",
        output: { type: "error-text", value: "Error: tool_calls[1] uses unknown tool 'nope'." },
      },
    ]);
    expect(toAiSdkToolResults(results).map((p) => [p.toolName, p.output.type])).toEqual([
      ["wait", "text"],
      ["search", "error-text"],
      ["fetch", "error-text"],
    ]);
  });
});

describe("calls that have not ended, and payloads that cannot be answered", () => {
  it("an active call gets its job's id and state (to await it), never a made-up result", () => {
    const waiting: ResultsPayload = {
      status: "waiting",
      wait_timeout: true,
      jobs: [
        snapshot({
          job_id: "wait-9",
          tool_name: "wait",
          tool_call_id: "call_z",
          state: "running",
          duration_seconds: 2,
          wait_timed_out: true,
        }),
      ],
    };
    const [message] = toOpenAIToolMessages(waiting);
    expect(JSON.parse(message!.content)).toMatchObject({ job_id: "wait-9", state: "running" });
    expect(toAnthropicToolResults(waiting)[0]!.is_error).toBeUndefined();
    const running: ToolCallsAnswer = {
      status: "running",
      batch_id: "b",
      results: [{ tool_call_id: "call_y", name: "deploy", job_id: "deploy-1", state: "pending" }],
    };
    expect(JSON.parse(toOpenAIToolMessages(running)[0]!.content)).toEqual({
      tool_call_id: "call_y",
      name: "deploy",
      job_id: "deploy-1",
      state: "pending",
    });
  });

  it("a job started without its call's id says how to start it with one", () => {
    const bare: ResultsPayload = {
      status: "success",
      jobs: [{ job_id: "wait-1", tool_name: "wait", state: "success", duration_seconds: 1, result: "ok" }],
    };
    expect(() => toOpenAIToolMessages(bare)).toThrow("Job wait-1 has no tool_call_id: start calls with their own ids");
  });

  it("something else altogether is refused with what it should be", () => {
    expect(() => toOpenAIToolMessages({ status: "started" } as unknown as ResultsPayload)).toThrow(
      "Expected a results payload ({status, jobs})",
    );
  });
});
