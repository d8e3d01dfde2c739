/**
 * What `job.started`, `job.finished` and a call's approval events say about a job
 * (docs/api.md#events-and-webhooks). Built from
 * the job's row alone, so an event kept on its job row (no webhook waits for it) reads back the same
 * as when it was announced.
 */
import type { JobRow } from "../jobs/job";
import { snapshot } from "../jobs/payloads";
import type { JobApproval } from "../approvals/approval";
import { traceIdOf } from "../telemetry/trace-context";

/** The call's own id, when it had one: a bot answers the call from the event alone. */
export const callId = (job: Pick<JobRow, "tool_call_id">) =>
  job.tool_call_id ? { tool_call_id: job.tool_call_id } : {};

/**
 * The batch's request metadata, when it had some, last in every event of the batch and its jobs
 * (docs/api.md#request-metadata).
 */
export const metadataOf = (job: Pick<JobRow, "metadata">) =>
  job.metadata ? { metadata: JSON.parse(job.metadata) as Record<string, unknown> } : {};

/**
 * What every event of a batch and its jobs ends with: its request metadata, and the id of its
 * trace when that is kept (docs/api.md#traces).
 */
export const batchEchoOf = (job: Pick<JobRow, "metadata" | "trace">) => ({ ...metadataOf(job), ...traceIdOf(job) });

export function jobStartedData(job: JobRow): Record<string, unknown> {
  const context = job.context_id ? { context_id: job.context_id } : {};
  return {
    job_id: job.job_id,
    batch_id: job.batch_id,
    tool_name: job.tool_name,
    ...callId(job),
    ...context,
    ...batchEchoOf(job),
  };
}

/** An ended job, its result cut at `maxResultChars` as a response would show it. */
export function jobFinishedData(job: JobRow, maxResultChars: number): Record<string, unknown> {
  // A terminal job's duration ends at completed_at: `now` is never read.
  const now = job.completed_at ?? job.started_at ?? job.created_at;
  return {
    batch_id: job.batch_id,
    ...snapshot(job, { now, maxResultChars, includeResult: true }),
    ...batchEchoOf(job),
  };
}

/**
 * `job.approval_requested` (docs/api.md#approvals): what a person needs to decide on the call, and
 * where to send the decision. `root_chat_id`: the chat the person talks in, for a child chat's call.
 */
export function approvalRequestedData(
  job: JobRow,
  chat: { chat_id: string; root_chat_id: string },
  approval: JobApproval,
): Record<string, unknown> {
  return {
    batch_id: job.batch_id,
    ...snapshot(job, { now: job.created_at, maxResultChars: 0, includeResult: false }),
    tool_args: JSON.parse(job.tool_args) as Record<string, unknown>,
    ...callId(job),
    chat_id: chat.chat_id,
    root_chat_id: chat.root_chat_id,
    agent: approval.agent,
    approval_expires_at: new Date(approval.expires_at).toISOString(),
    ...batchEchoOf(job),
  };
}

/** `job.approval_decided`: the decision on a call (`expired` when none came in time), who took it and why. */
export function approvalDecidedData(job: JobRow, approval: JobApproval): Record<string, unknown> {
  return {
    job_id: job.job_id,
    batch_id: job.batch_id,
    tool_name: job.tool_name,
    ...callId(job),
    decision: approval.decision,
    by: approval.by ?? null,
    reason: approval.reason ?? null,
    ...batchEchoOf(job),
  };
}
