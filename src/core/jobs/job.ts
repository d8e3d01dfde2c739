/**
 * A job as the ChatDO stores it, and the rules every path shares (docs/api.md#jobs-and-their-lifecycle).
 * Its states are listed once, in `src/core/api/job-states.ts`; the reasons it may wait (its gates), in
 * `src/core/gates/order.ts`.
 */
import type { JobState } from "../api/job-states";
import type { WaitReason } from "../gates/order";
import { flowWait } from "../flow/job-flow";
import { approvalOf, approvalStatus } from "../approvals/approval";
import { jobUsage, shownUsage } from "../usage/usage";
import { traceIdOf } from "../telemetry/trace-context";
import { failureOf } from "../api/error-types";

export { isTerminal, TERMINAL_STATES, type JobState, type TerminalState } from "../api/job-states";
export { GATES, type WaitReason } from "../gates/order";

/** One row of the `jobs` table; times are epoch milliseconds. */
export type JobRow = {
  job_id: string;
  chat_id: string;
  batch_id: string;
  idx: number;
  tool_name: string;
  /** The call's own id (docs/api.md#arguments-and-call-shapes), null when it came without one. */
  tool_call_id: string | null;
  tool_args: string;
  kind: "tool" | "subordinate";
  state: JobState;
  read_only: number;
  timeout_seconds: number;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  attempt: number;
  lease: string | null;
  deadline_at: number;
  result: string | null;
  result_truncated: number;
  error: string | null;
  context_id: string | null;
  usage: string | null;
  collected_at: number | null;
  dispatched_at: number | null;
  /** A tool: the highest attempt whose request may have left. A subordinate: 1 once its child chat has the turn. */
  sent: number;
  /** A subordinate job's request (JSON), else null. */
  spec: string | null;
  /** Set while a pending job may not start yet: why (the gate that holds it). */
  waiting_for: WaitReason | null;
  /** Its arrival at a gate that orders by arrival (see `GATES`), else null. */
  wait_seq: number | null;
  /** A subordinate's slot in its tree's root chat (the per-tree cap). */
  tree_slot: string | null;
  /** The last progress a running MCP tool reported (JSON of `Progress`); NULL once the job ends. */
  progress: string | null;
  /**
   * A call under flow rules: its holds, the rules as admitted, and the rule it waits at (JSON of `JobFlow`);
   * else null.
   */
  flow: string | null;
  /** A call under an approval rule: its request and the decision once taken (JSON of `JobApproval`); else null. */
  approval: string | null;
  /**
   * The budget of the top-level batch the job counts against (JSON of `BudgetScope`), inherited by a
   * subordinate's jobs; null without one.
   */
  budget: string | null;
  /** The batch's request metadata (compact JSON), inherited by a subordinate's jobs; null without any. */
  metadata: string | null;
  /**
   * The runner holding a running call: `WORKER_RUNNER` for a Worker invocation, else the index of the
   * chat's runner object; null when no runner holds it (a subordinate, or a call to recover).
   */
  runner: number | null;
  /** When the runner holding the call last renewed its lease. */
  renewed_at: number | null;
  /** Its trace context (JSON of `JobTrace`, docs/api.md#traces); null when its batch's trace was not kept. */
  trace: string | null;
  /** Why it did not succeed (docs/api.md#why-a-job-failed); null while active, on a success, and on rows ended before v14. */
  error_type: string | null;
  /** A rerun's job: the job it ran again (docs/api.md#rerun); else null. */
  rerun_of: string | null;
  /** 1: a call under the tenant's spending limit (docs/api.md#spending-limits); else null. */
  spend: number | null;
  /** The gates it left and when: JSON of `[WaitReason, ms][]`; null for a job that never waited. */
  waits: string | null;
  /** Computed on read: the place of a job waiting for a subagent slot (1 = next), else null. */
  queue_position?: number | null;
};

export const CANCELLED_ERROR = "Parallel job was cancelled.";
export { OUTCOME_UNKNOWN_ERROR } from "../api/error-types";
export const deadlineError = (seconds: number) =>
  `Job exceeded its ${seconds} s deadline (job_timeout) and was stopped; its late result was discarded.`;

export const JOB_ID_PREFIX_MAX = 12;

/** `<tool name letters/digits, ≤ 12>-<nanoid(12)>`, e.g. `callsubordin-V1StGXR8_Z5j`. */
export function jobIdPrefix(toolName: string): string {
  return toolName.replace(/[^A-Za-z0-9]/g, "").slice(0, JOB_ID_PREFIX_MAX) || "job";
}

/** Seconds from claim to completion (or now while running); 0 while pending. */
export function durationSeconds(job: Pick<JobRow, "started_at" | "completed_at">, now: number): number {
  if (job.started_at === null) return 0;
  const end = job.completed_at ?? now;
  return Math.max(0, Math.round(end - job.started_at)) / 1000;
}

export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Why a pending job has not started (`waiting_for`, and the flow rule it waits at), and until when a
 * person may approve its call while they have not (whichever gate it waits at); null otherwise.
 */
export function whyWaiting(job: JobRow): {
  waiting_for: WaitReason | null;
  flow: { rule: string; key?: string } | null;
  approval_expires_at: string | null;
} {
  const approval = job.state === "pending" ? approvalOf(job) : null;
  const approval_expires_at = approval && approval.decision === undefined ? iso(approval.expires_at) : null;
  if (job.state !== "pending" || job.waiting_for === null)
    return { waiting_for: null, flow: null, approval_expires_at };
  if (job.waiting_for !== "flow" || job.flow === null)
    return { waiting_for: job.waiting_for, flow: null, approval_expires_at };
  return { waiting_for: "flow", flow: flowWait(job.flow), approval_expires_at };
}

/**
 * What a job waited for before it started, in order: each gate it left (its `waits`), from when it
 * got there to when it left, and the gate it is still at (`to` null while it waits; its end if it
 * ended there, denied or cancelled).
 */
export function waitedOf(job: Pick<JobRow, "created_at" | "completed_at" | "waiting_for" | "waits">) {
  const left = job.waits === null ? [] : (JSON.parse(job.waits) as [WaitReason, number][]);
  let from = job.created_at;
  const waited: { for: WaitReason; from: string; to: string | null }[] = [];
  for (const [reason, at] of left) {
    waited.push({ for: reason, from: iso(from)!, to: iso(at) });
    from = at;
  }
  if (job.waiting_for !== null) waited.push({ for: job.waiting_for, from: iso(from)!, to: iso(job.completed_at) });
  return waited;
}

/** A call's approval as its record shows it. */
function approvalRecord(job: JobRow) {
  const approval = approvalOf(job);
  if (!approval) return null;
  return {
    status: approvalStatus(approval),
    expires_at: iso(approval.expires_at)!,
    decided_at: iso(approval.decided_at ?? null),
    by: approval.by ?? null,
    reason: approval.reason ?? null,
  };
}

/**
 * The full record of `GET …/jobs/{id}` (docs/api.md#jobs-and-their-lifecycle), field order as listed there;
 * `tool_call_id` sits after `tool_name` as on a snapshot.
 */
export function jobRecord(job: JobRow & { content: string | null }) {
  return {
    job_id: job.job_id,
    chat_id: job.chat_id,
    batch_id: job.batch_id,
    index: job.idx,
    tool_name: job.tool_name,
    tool_call_id: job.tool_call_id,
    tool_args: JSON.parse(job.tool_args) as Record<string, unknown>,
    kind: job.kind,
    state: job.state,
    created_at: iso(job.created_at)!,
    started_at: iso(job.started_at),
    completed_at: iso(job.completed_at),
    attempt: job.attempt,
    deadline_at: iso(job.deadline_at)!,
    result: job.result,
    result_truncated: job.result_truncated === 1,
    content: job.content === null ? null : (JSON.parse(job.content) as Record<string, unknown>[]),
    error: job.error,
    ...(failureOf(job) ?? { error_type: null, retryable: null }),
    context_id: job.context_id,
    rerun_of: job.rerun_of,
    // Every job's, its own and its subtree's (docs/api.md#usage-and-cost).
    usage: shownUsage(jobUsage(job)),
    collected_at: iso(job.collected_at),
    metadata: job.metadata === null ? null : (JSON.parse(job.metadata) as Record<string, unknown>),
    ...whyWaiting(job),
    waited: waitedOf(job),
    approval: approvalRecord(job),
    ...traceIdOf(job),
  };
}
export type JobRecord = ReturnType<typeof jobRecord>;

/** A record as a page of them lists it: all but `content`, an MCP job's parts (up to a megabyte each). */
export function listedRecord(job: JobRow): Omit<JobRecord, "content"> {
  const { content: _parts, ...record } = jobRecord({ ...job, content: null });
  return record;
}

/**
 * A job its own durable timer finishes (`wait_done`): the built-in `wait`. It has no call to run,
 * stop or recover, and takes no worker while it runs; every rule that treats it apart asks this.
 */
export const endsByTimer = (job: { tool_name: string }): boolean => job.tool_name === "wait";
