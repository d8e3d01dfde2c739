/**
 * A rerun's side in the chat (docs/api.md#rerun): the batch it reruns, read whole (the jobs it
 * carried over when it is a rerun itself), and the merged view its answer and `batch.finished` show.
 * The edge picks the jobs and checks their calls against the current configuration; admission
 * (`./batches`) checks again that they are this batch's and ended, since the batch is read twice.
 */
import { isTerminal, type JobRow } from "../../src/core/jobs/job";
import { ApiError, refusal, type Refusal } from "../../src/core/http/errors";
import type { RerunSource } from "../../src/core/jobs/rerun";
import { quoteName } from "../../src/core/calls/names";
import type { ChatStore } from "./storage/chat-store";
import { wholeBatch } from "./storage/rerun-batches";

const source = (j: JobRow): RerunSource => ({
  job_id: j.job_id,
  idx: j.idx,
  tool_name: j.tool_name,
  tool_args: j.tool_args,
  tool_call_id: j.tool_call_id,
  state: j.state,
  error: j.error,
  error_type: j.error_type,
  read_only: j.read_only === 1,
  timeout_seconds: j.timeout_seconds,
  metadata: j.metadata,
});

/** The batch to rerun, or why it cannot be: unknown here (404), or not finished yet (409). */
export function rerunSources(store: ChatStore, chatId: string, batchId: string): RerunSource[] | Refusal {
  const own = store.readable() ? store.jobs.byBatch(batchId) : [];
  if (own.length === 0) {
    return refusal(
      new ApiError(
        404,
        "unknown_batch",
        `No batch '${quoteName(batchId)}' in chat '${quoteName(chatId)}' (or it was purged).`,
      ),
    );
  }
  const active = own.filter((j) => !isTerminal(j.state)).length;
  if (active > 0) {
    return refusal(
      new ApiError(
        409,
        "batch_not_finished",
        `Batch '${quoteName(batchId)}' has ${active} job(s) still active: await or cancel them, then rerun.`,
      ),
    );
  }
  return wholeBatch(store, batchId, own).map(source);
}

/**
 * Two reruns of a batch at once (a double click, a retry without a key) would run the same calls twice:
 * the second is refused while the first has a job active. Asked at admission, after a request repeated
 * under its Idempotency-Key was answered with the first.
 */
export function refuseRerunRunning(store: ChatStore, batchId: string): void {
  const running = store.batches.activeRerunOf(batchId);
  if (!running) return;
  throw new ApiError(
    409,
    "rerun_running",
    `Batch '${quoteName(running)}' is already rerunning batch '${quoteName(batchId)}': await it, then rerun that batch if something still failed.`,
  );
}
