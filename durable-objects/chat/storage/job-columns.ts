/**
 * What a chat's job row is written and read as (`./job-store` and the classes it builds on run the
 * queries): the shapes admission and the job machine hand in, and the SQL fragments every query shares.
 */
import { GATES, type JobRow, type WaitReason } from "../../../src/core/jobs/job";
import { ACTIVE_STATES_SQL, type TerminalState } from "../../../src/core/api/job-states";
import type { ErrorType } from "../../../src/core/api/error-types";

/** A job as admission builds it: the row's identity and limits, with SQLite's 0/1 flags as booleans. */
export type NewJob = Pick<
  JobRow,
  | "job_id"
  | "chat_id"
  | "batch_id"
  | "idx"
  | "tool_name"
  | "tool_call_id"
  | "tool_args"
  | "kind"
  | "timeout_seconds"
  | "created_at"
  | "deadline_at"
  | "context_id"
  | "spec"
  | "metadata"
  | "flow"
  | "approval"
  | "budget"
> & {
  /** 1: a call under the tenant's spending limit; absent or null otherwise. */
  spend?: number | null;
  /** A rerun's job: the job it runs again; absent or null otherwise. */
  rerun_of?: string | null;
  /** Its trace context (JSON of `JobTrace`); absent or null for an untraced batch. */
  trace?: string | null;
  read_only: boolean;
  /** The gate it waits at before it may start, or null to start at once. */
  waiting_for: WaitReason | null;
  tree_slot?: string | null;
  /** Its log row's id and type (docs/api.md#log-rows), stored with the job. */
  log_id: string;
  log_type: string;
};

/**
 * Active jobs after a job's end (see `JobStore.activeAround`): `released`, the batch's not waiting for their
 * tier; `tier`, those that are.
 */
export type ActiveCounts = { chat: number; batch: number; released: number; tier: number };

interface Ending {
  result?: string | null;
  result_truncated?: boolean;
  error?: string | null;
  attempt?: number;
  usage?: unknown;
  /** An MCP result's parts, as stored (JSON, already bounded). */
  content?: string | null;
}

/** How a job ends: a success, or any other end with why (`error_type`, docs/api.md#why-a-job-failed). */
export type Finish =
  | (Ending & { state: "success" })
  | (Ending & { state: Exclude<TerminalState, "success">; error: string; error_type: ErrorType });

/**
 * Active: not ended. `completed_at IS NULL` (set by every end) lets SQLite use the `jobs_active` index; the
 * state says it.
 */
export const ACTIVE = `completed_at IS NULL AND state IN (${ACTIVE_STATES_SQL})`;
/** Waiting at `reason`'s gate. */
export const waitingAt = (reason: WaitReason) => `waiting_for = '${reason}' AND state = 'pending'`;
/**
 * Active jobs whose deadline is running: those waiting at a gate whose deadlines count from
 * acceptance, and those at none; the others start theirs when their gate lets them go. Read from
 * the order of the gates when asked, so a gate put in it later counts too.
 */
export function runningClock(): string {
  const whileWaiting = GATES.reasons.filter((r) => GATES.rule(r).clock === "from_acceptance").map((r) => `'${r}'`);
  return `${ACTIVE} AND (waiting_for IS NULL${whileWaiting.length ? ` OR waiting_for IN (${whileWaiting.join(", ")})` : ""})`;
}
/**
 * The columns a job is read with: all but `content`, an MCP result's parts (up to a megabyte of
 * base64), which only the full record shows; every await, batch and finish would carry it otherwise.
 */
export const ROW = `job_id, chat_id, batch_id, idx, tool_name, tool_call_id, tool_args, kind, state, read_only, timeout_seconds,
  created_at, started_at, completed_at, attempt, lease, deadline_at, result, result_truncated, error, context_id, usage,
  collected_at, dispatched_at, sent, spec, waiting_for, wait_seq, tree_slot, progress, runner, renewed_at, metadata, flow, approval, budget,
  trace, error_type, rerun_of, spend, waits`;
/** A job's columns, plus the place of a job waiting for a subagent slot in the chat's queue (1 = next to start). */
export const COLUMNS = `${ROW}, CASE WHEN ${waitingAt("subagent_slot")} THEN
    (SELECT COUNT(*) FROM jobs q WHERE q.waiting_for = 'subagent_slot' AND q.state = 'pending' AND q.wait_seq <= jobs.wait_seq)
  END AS queue_position`;

/**
 * What a reported outcome must meet to end its job without a read first (`JobMachine.complete`):
 * the lease it was run under, a deadline still ahead, and arguments small enough to leave the
 * outcome its room in the row.
 */
export interface EndGuard {
  lease: string;
  /** The deadline must be after this time. */
  before: number;
  /** The most bytes the row's arguments and subordinate request may take together. */
  besideAtMost: number;
}

export type JobToEnd = Pick<JobRow, "job_id" | "batch_id" | "state" | "lease" | "deadline_at" | "tool_args" | "spec">;
