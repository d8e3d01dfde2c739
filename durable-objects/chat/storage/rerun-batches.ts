/**
 * What a batch is made of beyond its own rows: a rerun's batch (docs/api.md#rerun) carries over jobs
 * of the batch it reran as they ended, and its answer, its `batch.finished` and its record show
 * them together, in call order; a batch also keeps what it reran and the turn a bot handed over
 * (its context, its calls) on its `batches` row.
 */
import type { BatchKeeps } from "../../../src/core/events/batch-view";
import type { JobRow } from "../../../src/core/jobs/job";
import type { AdmittedToolCall } from "../../../src/core/jobs/tool-calls-messages";
import type { ChatStore } from "./chat-store";

export type { RerunOf } from "./batch-rows";

/**
 * The batch's jobs and the jobs it carried over, in call order. Only a batch whose jobs say they are
 * a rerun's is looked up: any other batch costs no read.
 */
export function wholeBatch(store: ChatStore, batchId: string, own = store.jobs.byBatch(batchId)): JobRow[] {
  const rerunOf = own.some((j) => j.rerun_of !== null) ? store.batches.rerunOf(batchId) : undefined;
  if (!rerunOf) return own;
  return [...own, ...store.jobs.many(rerunOf.carried)].sort((a, b) => a.idx - b.idx);
}

/**
 * What the batch keeps on its row and shows: the batch it reran (looked up only for a rerun's jobs),
 * and the turn a `/tool-calls` request handed over: its context, its calls (with the earlier jobs a
 * `parallel` call among them named).
 */
export function batchKeeps(store: ChatStore, batchId: string, own: readonly JobRow[]): BatchKeeps {
  const rerunOf = own.some((j) => j.rerun_of !== null) ? store.batches.rerunOf(batchId)?.of : undefined;
  const { context, tool_calls } = store.batches.handedOver(batchId);
  return {
    ...(rerunOf ? { rerun_of: rerunOf } : {}),
    ...(context !== undefined ? { context } : {}),
    ...(tool_calls !== undefined ? { tool_calls: handedCalls(store, batchId, tool_calls) } : {}),
  };
}

function handedCalls(store: ChatStore, batchId: string, json: string): NonNullable<BatchKeeps["tool_calls"]> {
  const calls = JSON.parse(json) as AdmittedToolCall[];
  const named = calls.flatMap((c) => c.parallel?.job_ids ?? []);
  return { calls, named: named.length ? store.jobs.many(named).filter((j) => j.batch_id !== batchId) : [] };
}
