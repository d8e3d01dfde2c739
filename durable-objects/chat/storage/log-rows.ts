/**
 * Log rows: the per-job lines a chat UI shows (docs/api.md#log-rows), in the shape Agent Zero's log
 * items have. Each is read off its job's row: the job stores the row's id and type when it is
 * accepted, and everything else (heading, arguments, content once it ends) is the job's own. A
 * table of their own cost four rows written per job (billed) and said nothing the job did not.
 */
import { isTerminal, type JobRow } from "../../../src/core/jobs/job";
import type { WaitReason } from "../../../src/core/gates/order";

export interface LogRow {
  id: string;
  job_id: string;
  type: string;
  heading: string;
  kvps: Record<string, unknown>;
  content: string;
  created_at: string;
  updated_at: string;
}

/** docs/api.md#log-rows: `subagent` for subordinates, `progress` for `wait`, `mcp` for MCP tools, else `tool`. */
export function logType(job: { tool_name: string; kind: "tool" | "subordinate"; mcp?: boolean }): string {
  if (job.kind === "subordinate") return "subagent";
  if (job.mcp) return "mcp";
  return job.tool_name === "wait" ? "progress" : "tool";
}

/** What a pending call waits for, as its log row says it. */
const WAITS_FOR: Record<WaitReason, string> = {
  tier: "waits for its turn",
  subagent_slot: "waits for a subagent slot",
  approval: "waits for approval",
  flow: "waits for room under a flow rule",
  budget: "waits for its share of the budget",
  spend: "waits for the spending limit",
};

/**
 * `Using tool '<name>'` once the call has left, never before: a call waiting at a gate says what it
 * waits for, and one that ended without being made says so (a denied or cancelled call).
 */
export function logHeading(job: Pick<JobRow, "tool_name" | "state" | "started_at" | "waiting_for">): string {
  if (job.tool_name === "wait") return "Waiting";
  const tool = `Tool '${job.tool_name}'`;
  if (job.started_at !== null) return `Using tool '${job.tool_name}'`;
  if (isTerminal(job.state)) return `${tool} was not used`;
  return `${tool} ${job.waiting_for ? WAITS_FOR[job.waiting_for] : "has not started yet"}`;
}

/** What a finished job's row shows; empty while it is active. */
export function logContent(job: Pick<JobRow, "state" | "result" | "error">): string {
  if (!isTerminal(job.state)) return "";
  if (job.state === "success") return job.result ? job.result : "(completed without textual output)";
  return `Error: ${job.error ?? job.state}`;
}

type LoggedJob = Pick<
  JobRow,
  | "job_id"
  | "tool_name"
  | "tool_args"
  | "kind"
  | "state"
  | "result"
  | "error"
  | "created_at"
  | "started_at"
  | "completed_at"
  | "waiting_for"
> & {
  log_id: string | null;
  log_type: string | null;
};

export function logRow(job: LoggedJob): LogRow {
  return {
    id: job.log_id ?? `log-${job.job_id}`,
    job_id: job.job_id,
    type: job.log_type ?? logType(job),
    heading: logHeading(job),
    kvps: JSON.parse(job.tool_args) as Record<string, unknown>,
    content: logContent(job),
    created_at: new Date(job.created_at).toISOString(),
    updated_at: new Date(job.completed_at ?? job.created_at).toISOString(),
  };
}

export class LogStore {
  constructor(private readonly sql: SqlStorage) {}

  /**
   * Every job's row, oldest first (accepted together: in call order; batches accepted in the same
   * millisecond, by batch id).
   */
  all(): LogRow[] {
    return this.sql
      .exec<LoggedJob>(
        `SELECT job_id, tool_name, tool_args, kind, state, result, error, created_at, started_at, completed_at, waiting_for,
           log_id, log_type
         FROM jobs ORDER BY created_at, batch_id, idx`,
      )
      .toArray()
      .map(logRow);
  }
}
