/** The rerun route's wire shapes (docs/api.md#rerun). */
import { z } from "zod";
import { resultsPayload, startedPayload } from "./jobs";

/** How many jobs a rerun may name: as many as a batch may hold. */
const MAX_NAMED = 64;

export const rerunBody = z
  .strictObject({
    jobs: z
      .array(z.string().min(1).max(64))
      .max(MAX_NAMED)
      .optional()
      .describe(
        "Jobs of the batch to run again beside the default ones (every job that did not succeed and is `retryable`); a side effect whose outcome is unknown runs again only when named.",
      ),
    tool_args: z
      .record(z.string(), z.record(z.string(), z.unknown()))
      .optional()
      .describe("New arguments for jobs that run again, by job id; the others keep theirs."),
    wait: z.boolean().default(true).describe("Wait for the rerun's jobs (up to `limits.max_wait_seconds`)."),
  })
  .prefault({});

export type RerunBody = z.output<typeof rerunBody>;

const rerunOf = {
  batch_id: z.string().describe("The new batch."),
  rerun_of: z.string().describe("The batch it reran."),
};

/** The whole batch: the jobs carried over as they ended and the rerun's own, in the original order. */
export const rerunAnswer = z.union([resultsPayload.extend(rerunOf), startedPayload.extend(rerunOf)]);
