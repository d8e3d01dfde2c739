/**
 * Wire schemas of a batch as a whole (docs/api.md#batch-records): its record, and the calls a
 * `/tool-calls` batch answers, which `batch.finished` carries too.
 */
import { z } from "zod";
import { toolCallResult } from "./calls";
import { BATCH_STATUSES } from "./job-states";
import { requestMetadata, snapshot, traceId, usage } from "./jobs";

export const handedToolCalls = z
  .array(toolCallResult)
  .describe(
    "A `/tool-calls` batch: every call its model made, in call order, under the id it wrote. A call that is one job has its `job_id` and `state` (its outcome is that job in the batch's jobs); a refused or `parallel` call is its whole `/tool-calls` entry, `content` and all.",
  );

/** A batch as one record (docs/api.md#batch-records), until its jobs are purged. */
export const batchRecord = z.object({
  batch_id: z.string(),
  state: z.enum(BATCH_STATUSES).describe("As a results payload's `status`: `running` while any job is active."),
  jobs: z.array(snapshot).describe("Its jobs in call order (a rerun's carried-over jobs included)."),
  usage: usage.describe("The batch's own jobs and their subtrees."),
  metadata: requestMetadata.optional(),
  context: z
    .unknown()
    .optional()
    .describe("The `context` a `/tool-calls` request handed with the batch, as it was given."),
  tool_calls: handedToolCalls.optional(),
  rerun_of: z.string().optional().describe("A rerun's batch: the batch it reran."),
  trace_id: traceId.optional(),
});
