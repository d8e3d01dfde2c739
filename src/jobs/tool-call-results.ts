/**
 * The answer of `/tool-calls` (SPEC §5.4): one entry per call in the original
 * order; `content` is the result text or `Error: <message>`; calls still
 * active have their state and no content; refused calls carry their error.
 */
import { isTerminal, type JobRow, type JobState } from "./job";
import type { ToolCallEntry, ToolCallResult, ToolCallsAnswer } from "./messages";
import { batchStatus } from "./payloads";

/** `entry.error` holds any refusal, from the worker's checks or the chat's admission. */
export function toolCallResult(entry: ToolCallEntry, jobId: string | undefined, rows: Map<string, JobRow>): ToolCallResult {
  const base = { tool_call_id: entry.tool_call_id, name: entry.name };
  const error = entry.error;
  if (error || !jobId) {
    const e = error ?? { code: "internal", message: "The call was not admitted." };
    return { ...base, job_id: null, state: "error", content: `Error: ${e.message}`, error: e };
  }
  const row = rows.get(jobId);
  const state: JobState = row?.state ?? "pending";
  if (!row || !isTerminal(state)) return { ...base, job_id: jobId, state };
  const content = state === "success" ? (row.result ?? "") : `Error: ${row.error ?? state}`;
  return { ...base, job_id: jobId, state, content };
}

export function toolCallsStatus(results: ToolCallResult[], waitTimedOut: boolean): ToolCallsAnswer["status"] {
  return batchStatus(results.map((r) => r.state), waitTimedOut);
}
