/**
 * The agent turn's bookkeeping, with no I/O: one fanout batch for all the tool
 * calls of one model message, and the tool messages that answer them once
 * fanout reports the batch finished.
 */
import type { ParallelArgs, ResultsPayload } from "@fanout/client";
import type OpenAI from "openai";

export type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;
export type ToolCall = OpenAI.Chat.Completions.ChatCompletionMessageToolCall;

/** Which of the batch's jobs answer which tool call of the model. */
export interface Span {
  tool_call_id: string;
  /** The model called `parallel` (its answer is a results payload), not a tool directly. */
  parallel: boolean;
  from: number;
  to: number;
}

type Call = { tool_name: string; tool_args: Record<string, unknown> };

function parseArgs(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw || "{}");
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * A `parallel` call contributes the calls it lists; any other tool call is one call of its own.
 * Everything starts at once with `wait: false`: the bot answers Telegram now and continues later.
 */
export function batchFor(toolCalls: ToolCall[]): { args: ParallelArgs; spans: Span[] } {
  const calls: Call[] = [];
  const spans: Span[] = [];
  for (const call of toolCalls) {
    if (call.type !== "function") continue;
    const args = parseArgs(call.function.arguments);
    const from = calls.length;
    const parallel = call.function.name === "parallel";
    if (parallel) calls.push(...((Array.isArray(args.tool_calls) ? args.tool_calls : []) as Call[]));
    else calls.push({ tool_name: call.function.name, tool_args: args });
    spans.push({ tool_call_id: call.id, parallel, from, to: calls.length });
  }
  return { args: { tool_calls: calls, wait: false }, spans };
}

/** One tool message per tool call: a `parallel` call gets its jobs' payload, a direct call its job's result. */
export function toolMessages(spans: Span[], results: ResultsPayload): Message[] {
  return spans.map((span) => {
    const jobs = results.jobs.slice(span.from, span.to);
    const job = jobs[0];
    // The usual case, one `parallel` call for the whole batch, gets fanout's payload as it is.
    const whole = span.from === 0 && span.to === results.jobs.length;
    const content = span.parallel
      ? JSON.stringify(whole ? results : { jobs })
      : job?.state === "success"
        ? (job.result ?? "")
        : `Error: ${job?.error ?? "the tool did not run"}`;
    return { role: "tool", tool_call_id: span.tool_call_id, content };
  });
}
