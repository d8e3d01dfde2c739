/**
 * The chat's subagent queue (`on_subagent_limit: "queue"`): queued
 * subordinates start in order as slots free, one run at a time (the `queue`
 * timer). At the top-level chat a job the tree has no slot for waits for the
 * next release; a child's ends `error` with the tree's refusal instead (see
 * `CapState.queueOnTree`).
 */
import type { JobRow } from "../../../src/jobs/job";
import { armStarted } from "../jobs/batch-rows";
import type { Dispatcher } from "../jobs/dispatcher";
import type { JobMachine } from "../jobs/job-machine";
import type { ChatStore } from "../storage/chat-store";
import { subagentLimit } from "./subagent-cap";
import { subordinateState } from "./subordinate-state";
import type { TreeCap } from "./tree-cap";

/** While subordinates are queued, the queue is looked at least this often. */
const QUEUE_SAFETY_MS = 30_000;

/** A subagent slot freed (here, or in the tree at the root): the queue's next jobs may start. */
export function queueMayMove(store: ChatStore, now: number): void {
  if (store.jobs.queued().length) store.timers.set("queue", "", now);
}

export async function startQueued(store: ChatStore, tree: TreeCap, machine: JobMachine, dispatcher: Dispatcher, now: number): Promise<void> {
  const limits = store.limits();
  const free = limits.max_parallel_subagents - subordinateState(store).runningJobIds.length;
  const next = store.jobs.queued().slice(0, Math.max(0, free));
  if (next.length === 0) return;
  const reservation = await tree.reserve({ ...store.address(), limits }, next, now);
  const stillQueued = new Set(store.jobs.queued().map((j) => j.job_id)); // a cancel may have come in meanwhile
  const allowance = tree.allowance(reservation, limits, now);
  const starting: JobRow[] = [];
  const refused: JobRow[] = [];
  for (const job of next) {
    if (!stillQueued.has(job.job_id)) continue;
    if (allowance.grants(job.job_id, starting.length)) starting.push(job);
    else if (reservation.remote) refused.push(job);
  }
  store.transaction(() => {
    for (const job of starting) store.jobs.unqueue(job.job_id, armStarted(store, job, now));
    tree.settle(reservation, starting.map((j) => j.job_id));
    const error = subagentLimit("tree", allowance.holders, 1, limits.max_subagents_per_tree).message;
    for (const job of refused) machine.finish(job, { state: "error", error }, now);
    // Releases move the queue (ref ""); this covers a tree slot that expired instead of being released.
    if (store.jobs.queued().length) store.timers.set("queue", "safety", now + QUEUE_SAFETY_MS);
  });
  await dispatcher.start(starting.map((j) => j.job_id));
}
