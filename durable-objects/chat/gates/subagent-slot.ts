/**
 * The subagent queue (`on_subagent_limit: "queue"`, docs/api.md#caps-permissions-and-depth):
 * subordinates over the cap start in arrival order as slots free, one run at a time. At the
 * top-level chat a job the tree has no slot for waits for the next release; a child's ends `error`
 * with the tree's refusal instead (see `CapState.queueOnTree`). Scope: the chat (`safety`: the
 * periodic look that covers a tree slot which expired instead of being released).
 */
import type { JobRow } from "../../../src/core/jobs/job";
import { subagentLimit } from "../subagents/subagent-cap";
import { subordinateState } from "../subagents/subordinate-state";
import { letGo, type Gate } from "./gate";

/** While subordinates are queued, the queue is looked at least this often. */
const QUEUE_SAFETY_MS = 30_000;

export const subagentSlotGate: Gate = {
  reason: "subagent_slot",
  afterEnd: (store, ended) =>
    ended.kind === "subordinate" &&
    ended.waiting_for !== "subagent_slot" &&
    store.jobs.waitingAt("subagent_slot").length
      ? [""]
      : [],
  async open({ store, tree, machine, dispatcher }, _scope, now) {
    const limits = store.limits();
    const free = limits.max_parallel_subagents - subordinateState(store).runningJobIds.length;
    const next = store.jobs.waitingAt("subagent_slot").slice(0, Math.max(0, free));
    if (next.length === 0) return;
    const reservation = await tree.reserve({ ...store.address(), limits }, next, now);
    // a cancel may have come in meanwhile
    const stillWaiting = new Set(store.jobs.waitingAt("subagent_slot").map((j) => j.job_id));
    const allowance = tree.allowance(reservation, limits, now);
    const starting: JobRow[] = [];
    const refused: JobRow[] = [];
    for (const job of next) {
      if (!stillWaiting.has(job.job_id)) continue;
      if (allowance.grants(job.job_id, starting.length)) starting.push(job);
      else if (reservation.remote) refused.push(job);
    }
    const dispatched = store.transaction(() => {
      const started = starting.filter((job) => letGo(store, job, now, job.job_id));
      tree.settle(
        reservation,
        starting.map((j) => j.job_id),
      );
      const error = subagentLimit("tree", allowance.holders, 1, limits.max_subagents_per_tree).message;
      for (const job of refused) machine.finish(job, { state: "error", error, error_type: "flow_rejected" }, now);
      if (store.jobs.waitingAt("subagent_slot").length)
        store.timers.set("gate", "subagent_slot:safety", now + QUEUE_SAFETY_MS);
      return started;
    });
    await dispatcher.start(dispatched.map((j) => j.job_id));
  },
};
