/**
 * A batch as a whole (docs/api.md#batch-records): its jobs in call order (a rerun's carried-over
 * jobs included), its own usage, and what it echoes (request metadata, its trace, what it reran, the
 * bot's context, and for a `/tool-calls` batch every call the model made, refused ones too). `batch.finished` and `GET /v1/chats/{chat}/batches/{batch_id}` both say it this
 * way. Pure: the chat reads the rows and what its batch keeps.
 */
import { batchEchoOf } from "./job-events";
import { addUsage, jobUsage, NO_USAGE, shownUsage } from "../usage/usage";
import type { JobRow } from "../jobs/job";
import { resultsPayload, type PayloadView, type SnapshotOptions } from "../jobs/payloads";
import { batchToolCalls } from "../jobs/tool-call-results";
import type { AdmittedToolCall } from "../jobs/tool-calls-messages";

/**
 * What a batch keeps beside its jobs and shows: the batch it reran, and what a `/tool-calls` request
 * handed over with it: the context (JSON text), the calls as admitted with the earlier jobs (of other
 * batches) that a `parallel` call among them named.
 */
export interface BatchKeeps {
  rerun_of?: string;
  context?: string;
  tool_calls?: { calls: AdmittedToolCall[]; named: JobRow[] };
}

/**
 * `own`: the batch's own rows (its usage); `whole`: the jobs it shows, in call order (a rerun's
 * carried-over ones too). `own` is never empty: a batch is its jobs.
 */
export function batchView(
  own: readonly JobRow[],
  whole: JobRow[],
  keeps: BatchKeeps,
  view: Omit<SnapshotOptions, "includeResult">,
) {
  return {
    ...(keeps.rerun_of ? { rerun_of: keeps.rerun_of } : {}),
    results: resultsPayload(whole, view),
    usage: shownUsage(addUsage(NO_USAGE, ...own.map(jobUsage))),
    ...batchEchoOf(own[0]!),
    ...(keeps.context !== undefined ? { context: JSON.parse(keeps.context) as unknown } : {}),
    ...(keeps.tool_calls ? { tool_calls: handedCalls(keeps.tool_calls, whole, view) } : {}),
  };
}

function handedCalls({ calls, named }: NonNullable<BatchKeeps["tool_calls"]>, whole: JobRow[], view: PayloadView) {
  return batchToolCalls(calls, new Map([...whole, ...named].map((row) => [row.job_id, row])), view);
}

/** The batch's record: its state (the results payload's status) and its jobs, with the rest of its view. */
export function batchRecord(batchId: string, batch: ReturnType<typeof batchView>) {
  const { results, ...rest } = batch;
  return { batch_id: batchId, state: results.status, jobs: results.jobs, ...rest };
}

export type BatchRecord = ReturnType<typeof batchRecord>;
