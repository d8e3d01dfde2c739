/**
 * What a rerun's batch is made of (docs/api.md#rerun): its own jobs and the jobs of the batch it
 * reran that it carried over as they ended, kept on its `batches` row. Its answer and its
 * `batch.finished` show them together, in call order.
 */
import type { JobRow } from "../../../src/core/jobs/job";
import type { ChatStore } from "./chat-store";

export type { RerunOf } from "./events";

/**
 * The batch's jobs and the jobs it carried over, in call order. Only a batch whose jobs say they are
 * a rerun's is looked up: any other batch costs no read.
 */
export function wholeBatch(store: ChatStore, batchId: string, own = store.jobs.byBatch(batchId)): JobRow[] {
  const rerunOf = own.some((j) => j.rerun_of !== null) ? store.events.rerunOf(batchId) : undefined;
  if (!rerunOf) return own;
  return [...own, ...store.jobs.many(rerunOf.carried)].sort((a, b) => a.idx - b.idx);
}
