/**
 * The wire payloads of docs/api.md#payloads, built from job rows. Key order is part of the
 * contract (models and Agent Zero clients read the compact JSON), so each
 * object is assembled field by field in the listed order.
 */
import type { z } from "zod";
import type * as schemas from "../api/jobs";
import { durationSeconds, isTerminal, whyWaiting, type JobRow, type JobState } from "./job";
import type { Progress } from "./progress";
import { failureOf } from "../api/error-types";
import { addUsage, shownUsage } from "../usage/usage";
import { jobTraceOf } from "../telemetry/trace-context";

/** Wire types come from the zod schemas that also generate /openapi.json. */
export type Snapshot = z.infer<typeof schemas.snapshot>;
export type ResultsPayload = z.infer<typeof schemas.resultsPayload>;
export type StartedPayload = z.infer<typeof schemas.startedPayload>;
export type BatchStatus = ResultsPayload["status"];
export type Usage = NonNullable<Snapshot["usage"]>;

export const STARTED_INSTRUCTION = "Use the parallel tool with job_ids to await or cancel these background jobs.";
export const RUNNING_INSTRUCTION =
  'Some jobs are still running. Call `parallel` with `action: "await"` and the listed `job_ids` to wait again, or `action: "cancel"` to stop them.';

export interface SnapshotOptions {
  now: number;
  maxResultChars: number;
  includeResult: boolean;
  waitTimedOut?: boolean;
}

export function snapshot(job: JobRow, o: SnapshotOptions): Snapshot {
  const s: Snapshot = {
    job_id: job.job_id,
    tool_name: job.tool_name,
    // The call's own id, when it had one, sits between tool_name and state (docs/api.md#payloads).
    ...(job.tool_call_id ? { tool_call_id: job.tool_call_id } : {}),
    state: job.state,
    duration_seconds: durationSeconds(job, o.now),
  };
  if (job.queue_position) s.queue_position = job.queue_position;
  const why = whyWaiting(job); // as the record says it
  if (why.waiting_for) s.waiting_for = why.waiting_for;
  if (why.flow) s.flow = why.flow;
  if (why.approval_expires_at) s.approval_expires_at = why.approval_expires_at;
  if (job.context_id) s.context_id = job.context_id;
  if (job.rerun_of) s.rerun_of = job.rerun_of;
  if (o.includeResult) {
    if (job.result !== null) {
      const shown = cutChars(job.result, o.maxResultChars);
      s.result = shown;
      if (shown.length < job.result.length || job.result_truncated) s.result_truncated = true;
    }
    if (job.error !== null) s.error = job.error;
    const failure = failureOf(job);
    if (failure) Object.assign(s, failure);
    if (job.usage !== null) s.usage = shownUsage(addUsage(JSON.parse(job.usage) as Usage));
  }
  // Only while active: the row clears it when the job ends, and an older row may still hold one.
  if (job.progress && !isTerminal(job.state)) s.progress = JSON.parse(job.progress) as Progress;
  if (o.waitTimedOut && !isTerminal(job.state)) s.wait_timed_out = true;
  return s;
}

/** The first `max` characters (code points, as Python counts them), never half a surrogate pair. */
export function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = 0;
  let count = 0;
  for (const ch of text) {
    if (count === max) break;
    end += ch.length;
    count++;
  }
  return text.slice(0, end);
}

/** The status rule of docs/api.md#payloads, in its precedence order. */
export function batchStatus(states: JobState[], waitTimedOut: boolean): BatchStatus {
  if (states.some((s) => !isTerminal(s))) return waitTimedOut ? "waiting" : "running";
  if (states.length > 0 && states.every((s) => s === "success")) return "success";
  if (states.length > 0 && states.every((s) => s === "cancelled")) return "cancelled";
  if (states.some((s) => s === "success")) return "partial";
  return "error";
}

export function resultsPayload(jobs: JobRow[], o: Omit<SnapshotOptions, "includeResult">): ResultsPayload {
  const active = jobs.some((j) => !isTerminal(j.state));
  const timedOut = Boolean(o.waitTimedOut) && active;
  const payload: ResultsPayload = {
    status: batchStatus(
      jobs.map((j) => j.state),
      timedOut,
    ),
    jobs: jobs.map((j) => snapshot(j, { ...o, waitTimedOut: timedOut, includeResult: true })),
  };
  if (timedOut) payload.wait_timeout = true;
  if (active) payload.instruction = RUNNING_INSTRUCTION;
  return withTraceId(payload, jobs);
}

/**
 * The trace the answer's jobs belong to, last in the payload, when their trace is kept
 * (docs/api.md#traces); an await over jobs of several traces names none.
 */
function withTraceId<P extends ResultsPayload | StartedPayload>(payload: P, jobs: JobRow[]): P {
  const ids = new Set(jobs.flatMap((j) => jobTraceOf(j)?.t ?? []));
  return ids.size === 1 ? { ...payload, trace_id: [...ids][0]! } : payload;
}

/** When a payload is built and how long its results may be. */
export type PayloadView = Pick<SnapshotOptions, "now" | "maxResultChars">;

export function startedPayload(jobs: JobRow[], o: PayloadView): StartedPayload {
  return withTraceId(
    {
      status: "started",
      jobs: jobs.map((j) => snapshot(j, { ...o, includeResult: false })),
      instruction: STARTED_INSTRUCTION,
    },
    jobs,
  );
}

/** The text a model should see for a payload (`Accept: text/plain`). */
export const payloadText = (payload: unknown) => JSON.stringify(payload);
