/**
 * A job as fanout's MCP endpoint shows it (docs/mcp.md): the result of a `tools/call`, and the task
 * that stands for the job (task id = job id) under either task exchange. Pure: the chat reads the
 * view (`jobView`), these rules turn it into the wire shapes.
 */
import { approvalOf } from "../approvals/approval";
import { isTerminal, type JobRow } from "../jobs/job";
import { snapshot, type Snapshot } from "../jobs/payloads";

/** What the endpoint reads of one job, in one read of the chat. */
export interface McpJobView {
  snapshot: Snapshot;
  /** An MCP tool's content parts as its server sent them; null for every other job. */
  parts: Record<string, unknown>[] | null;
  tool_args: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  /** The call waits under an approval rule that asks the MCP client (`ask_mcp_client`), as admission found it. */
  asks_mcp_client: boolean;
}

export function mcpJobView(job: JobRow & { content: string | null }, now: number, maxResultChars: number): McpJobView {
  const last = job.completed_at ?? job.started_at ?? job.created_at;
  return {
    snapshot: snapshot(job, { now, maxResultChars, includeResult: true }),
    parts: job.content === null ? null : (JSON.parse(job.content) as Record<string, unknown>[]),
    tool_args: JSON.parse(job.tool_args) as Record<string, unknown>,
    created_at: new Date(job.created_at).toISOString(),
    updated_at: new Date(last).toISOString(),
    asks_mcp_client: approvalOf(job)?.ask_mcp_client === true,
  };
}

export interface CallToolResult {
  content: Record<string, unknown>[];
  /** Absent only on a refused call, which has no job. */
  structuredContent?: Snapshot;
  isError: boolean;
  [key: string]: unknown;
}

/**
 * The result of a call whose job ended: the text a model reads of it (its result, or `Error: …`),
 * or an MCP tool's own parts; the job's snapshot as `structuredContent`. A job that did not
 * succeed is an error result, never a JSON-RPC error: the call itself was made.
 */
export function endedCallResult(view: McpJobView): CallToolResult {
  const s = view.snapshot;
  const failed = s.state !== "success";
  const text = failed ? `Error: ${s.error ?? s.state}` : (s.result ?? "");
  const content = !failed && view.parts?.length ? view.parts : [{ type: "text", text }];
  return { content, structuredContent: s, isError: failed };
}

/**
 * The result of a synchronous call whose job outlived the wait: not an error (the call goes on);
 * the text says which job it is and how to read its result later.
 */
export function stillRunningResult(view: McpJobView, chatId: string, waitedSeconds: number): CallToolResult {
  const { job_id, state } = view.snapshot;
  const text =
    `The call is still ${state} after ${waitedSeconds} s and keeps running as fanout job ${job_id}. ` +
    `Read its result with GET /v1/chats/${encodeURIComponent(chatId)}/jobs/${job_id}, or make the call as a task to poll it.`;
  return { content: [{ type: "text", text }], structuredContent: view.snapshot, isError: false };
}

/** A job's state as a task's status: what both task exchanges share. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/**
 * `working` while the job is active (`input_required` when this client decides its approval);
 * once it ended, `cancelled` for a cancelled job. The 2026-07-28 extension reports every other end
 * as `completed`, a job that did not succeed with an error result; 2025-11-25 calls that `failed`.
 */
export function taskStatus(view: McpJobView, o: { exchange: "2026" | "2025"; asksClient: boolean }): TaskStatus {
  const { state, waiting_for } = view.snapshot;
  if (!isTerminal(state)) return o.asksClient && waiting_for === "approval" ? "input_required" : "working";
  if (state === "cancelled") return "cancelled";
  if (state === "success" || o.exchange === "2026") return "completed";
  return "failed";
}

/** What the job waits for or does now, as a task's `statusMessage` and a progress message say it. */
export function statusMessage(view: McpJobView): string | undefined {
  const s = view.snapshot;
  if (isTerminal(s.state)) return s.state === "success" ? undefined : (s.error ?? s.state);
  switch (s.waiting_for) {
    case "approval":
      return "waiting for approval";
    case "flow":
      return `waiting for flow slot: ${s.flow?.rule ?? "?"}`;
    case "tier":
      return "waiting for the calls before it";
    case "subagent_slot":
      return "waiting for a subagent slot";
    case "budget":
      return "waiting for budget";
  }
  if (s.progress?.message) return s.progress.message;
  return s.state === "running" ? "running" : "waiting to start";
}
