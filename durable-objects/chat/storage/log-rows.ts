/**
 * Log rows: the per-job lines a chat UI shows (docs/api.md#log-rows), in the shape Agent
 * Zero's log items have. One row per job, written when the job is accepted and
 * filled in when it ends.
 */
import type { JobRow } from "../../../src/jobs/job";

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

interface LoggedJob {
  job_id: string;
  tool_name: string;
  tool_args: string;
  kind: "tool" | "subordinate";
  /** The job calls an MCP tool. */
  mcp?: boolean;
}

/** docs/api.md#log-rows: `subagent` for subordinates, `progress` for `wait`, `mcp` for MCP tools, else `tool`. */
export function logType(job: Pick<LoggedJob, "tool_name" | "kind" | "mcp">): string {
  if (job.kind === "subordinate") return "subagent";
  if (job.mcp) return "mcp";
  return job.tool_name === "wait" ? "progress" : "tool";
}

export const logHeading = (toolName: string) => (toolName === "wait" ? "Waiting" : `Using tool '${toolName}'`);

/** What a finished job's row shows. */
export function logContent(job: Pick<JobRow, "state" | "result" | "error">): string {
  if (job.state === "success") return job.result ? job.result : "(completed without textual output)";
  return `Error: ${job.error ?? job.state}`;
}

export class LogStore {
  constructor(private readonly sql: SqlStorage) {}

  add(id: string, job: LoggedJob, now: number): void {
    this.sql.exec(
      `INSERT INTO log (id, job_id, type, heading, kvps, content, created_at, updated_at) VALUES (?, ?, ?, ?, ?, '', ?, ?)`,
      id, job.job_id, logType(job), logHeading(job.tool_name), job.tool_args, now, now,
    );
  }

  /** Fills the row of a finished job, unless something already wrote its content. */
  complete(job: JobRow, now: number): void {
    this.sql.exec(
      `UPDATE log SET content = ?, updated_at = ? WHERE job_id = ? AND content = ''`,
      logContent(job), now, job.job_id,
    );
  }

  all(): LogRow[] {
    return this.sql
      .exec<{ id: string; job_id: string; type: string; heading: string; kvps: string; content: string; created_at: number; updated_at: number }>(
        `SELECT * FROM log ORDER BY created_at, rowid`,
      )
      .toArray()
      .map((r) => ({
        id: r.id,
        job_id: r.job_id,
        type: r.type,
        heading: r.heading,
        kvps: JSON.parse(r.kvps),
        content: r.content,
        created_at: new Date(r.created_at).toISOString(),
        updated_at: new Date(r.updated_at).toISOString(),
      }));
  }
}
