/**
 * What a child's model reads besides its own conversation: the system prompt, its tool calls'
 * results cut to the loop's size, the report of the background jobs it started, and the last text
 * it said when a turn ends short. Kept apart from the step's control flow (`./agent-loop`) so the
 * loop reads as the steps it takes.
 */
import type { ChatMessage, LlmReply } from "../../../src/core/agents/llm";
import { DEFAULT_SYSTEM_PROMPT, type Profile } from "../../../src/core/agents/profiles";
import { PROMPT_SOURCES } from "../../../src/core/agents/prompts";
import { utf8Length } from "../../../src/core/storage/row-bounds";
import { cutChars, resultsPayload } from "../../../src/core/jobs/payloads";
import type { JobStore } from "../storage/job-store";
import type { AwaitedCall } from "../storage/turns";

/** Results a child's model reads are cut like a top-level response's default. */
export const MAX_RESULT_CHARS_IN_LOOP = 16_000;

/** The system message a child's model request begins with: its profile's prompt, then how to orchestrate. */
export function systemPrompt(prof: Profile): string {
  return `${prof.system_prompt ?? DEFAULT_SYSTEM_PROMPT}\n\n${PROMPT_SOURCES.orchestration}`;
}

/** Tool results for the model, from finished jobs: the result, or `Error: …`. */
export function toolContent(call: AwaitedCall, jobs: JobStore, now: number): string {
  if (call.content !== undefined) return call.content;
  if (call.job_ids)
    return JSON.stringify(resultsPayload(jobs.many(call.job_ids), { now, maxResultChars: MAX_RESULT_CHARS_IN_LOOP }));
  const job = jobs.get(call.job_id!);
  if (!job) return "Error: the job's record was purged before its result was read.";
  if (job.state === "success")
    return job.result === null ? "(completed without textual output)" : cutChars(job.result, MAX_RESULT_CHARS_IN_LOOP);
  return `Error: ${job.error ?? job.state}`;
}

/** The one user message that hands the model the background jobs it started (docs/api.md#the-agent-loop). */
export function backgroundReport(jobIds: string[], jobs: JobStore, now: number): ChatMessage {
  const payload = resultsPayload(jobs.many(jobIds), { now, maxResultChars: MAX_RESULT_CHARS_IN_LOOP });
  return {
    role: "user",
    content: `Background jobs you started have finished. Use their results, then give your final answer:\n${JSON.stringify(payload)}`,
  };
}

export function lastText(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant" && typeof m.content === "string" && m.content) return m.content;
  }
  return "";
}

/** A model reply's size as it would be stored (JSON-escaped): it is one message row, and later the outcome's. */
export function replyBytes(reply: LlmReply): number {
  return (
    utf8Length(JSON.stringify(reply.content)) +
    reply.tool_calls.reduce((n, c) => n + utf8Length(JSON.stringify(c.arguments)), 0)
  );
}
