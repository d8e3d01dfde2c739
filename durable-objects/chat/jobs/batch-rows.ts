/**
 * Writing an admitted batch and moving its tiers: the rows, log rows, child
 * rows and timers of a batch (inside the caller's transaction), and the
 * release of a held or queued job, whose deadline starts only when it starts.
 */
import type { JobRow } from "../../../src/jobs/job";
import type { SubordinatePlan } from "../storage/children";
import type { ChatStore } from "../storage/chat-store";
import type { AdmittedBatch } from "./admission";

/** A pending job not claimed this long after dispatch is sent again (lost or delayed message). */
export const DISPATCH_WATCHDOG_MS = 15_000;

/** Writes a batch's jobs, log rows, children and timers (inside the caller's transaction); returns the ids to start. */
export function insertBatch(store: ChatStore, batch: AdmittedBatch, plans: Map<number, SubordinatePlan>, now: number): string[] {
  const start: string[] = [];
  let deadline = Infinity;
  store.timers.unparkJobWatches(now); // before the rows: only a chat with no active job has parked watches
  for (const job of batch.jobs) {
    store.jobs.insert(job);
    if (job.held || job.queued) continue; // its deadline starts when it is released
    deadline = Math.min(deadline, job.deadline_at);
    start.push(job.job_id);
  }
  if (start.length) {
    store.timers.setEarliest("deadline", "", deadline);
    store.timers.setEarliest("dispatch", "", now + DISPATCH_WATCHDOG_MS);
  }
  for (const [index, plan] of plans) {
    const tool = batch.jobs.find((j) => j.idx === index)!.tool_name;
    store.children.upsert({ context_id: plan.context_id, tool, profile: plan.profile, name: plan.name }, now);
  }
  // A batch of side-effecting calls only has no concurrent tier: its first call goes at once.
  const first = start.length === 0 ? releaseNext(store, batch.batch_id, now) : undefined;
  return first ? [first] : start;
}

/** Releases the next held job of a batch once its released jobs are all terminal; its deadline starts now. */
export function releaseNext(store: ChatStore, batchId: string, now: number): string | undefined {
  const next = store.jobs.nextHeld(batchId);
  if (!next) return undefined;
  store.jobs.release(next.job_id, armStarted(store, next, now));
  return next.job_id;
}

/** A held or queued job starts now: its deadline (never past the running turn's) and the dispatch watchdog. */
export function armStarted(store: ChatStore, job: JobRow, now: number): number {
  const deadline = Math.min(now + job.timeout_seconds * 1000, store.turns.running()?.deadline_at ?? Infinity);
  store.timers.setEarliest("deadline", "", deadline);
  store.timers.setEarliest("dispatch", "", now + DISPATCH_WATCHDOG_MS);
  return deadline;
}
