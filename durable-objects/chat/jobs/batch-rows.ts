/**
 * Writing an admitted batch: the rows, log rows, child rows and timers of a batch (inside the
 * caller's transaction). A job that waits at a gate (`../gates`) starts when the gate lets it go.
 */
import { WAIT_REASONS } from "../../../src/jobs/job";
import type { SubordinatePlan } from "../storage/children";
import type { ChatStore } from "../storage/chat-store";
import type { AdmittedBatch } from "./admission";

/** Gates whose waiting calls ask an object (`gates/flow.ts`, `gates/budget.ts`): a new batch asks them beside its answer. */
export const ASKED_AT_ONCE = ["flow", "budget"] as const;
/** Should that ask be lost with the instance (or fail), the gate's timer asks this much later. */
export const ASK_BACKUP_MS = 2_000;

/** A pending job not claimed this long after dispatch is sent again (lost or delayed message). */
export const DISPATCH_WATCHDOG_MS = 15_000;

/**
 * Writes a batch's jobs, log rows, children and timers (inside the caller's transaction); returns the ids to start.
 * Calls that ask an object before they start (room under flow rules, a share of the batch's budget)
 * ask when the `gate` timer fires at `askAt`; a caller that asks at once beside the answer sets it
 * later, as the backup of that ask.
 */
export function insertBatch(store: ChatStore, batch: AdmittedBatch, plans: Map<number, SubordinatePlan>, now: number, askAt = now): string[] {
  const start: string[] = [];
  let deadline = Infinity;
  store.timers.unparkJobWatches(now); // before the rows: only a chat with no active job has parked watches
  for (const job of batch.jobs) {
    store.jobs.insert(job);
    if (job.waiting_for === null) start.push(job.job_id);
    else if (WAIT_REASONS[job.waiting_for].clock === "from_release") continue; // its deadline starts when its gate lets it go
    deadline = Math.min(deadline, job.deadline_at);
  }
  if (deadline < Infinity) store.timers.setEarliest("deadline", "", deadline);
  for (const reason of ASKED_AT_ONCE) if (batch.jobs.some((j) => j.waiting_for === reason)) store.timers.setEarliest("gate", reason, askAt);
  if (start.length) store.timers.setEarliest("dispatch", "", now + DISPATCH_WATCHDOG_MS);
  for (const [index, plan] of plans) {
    const tool = batch.jobs.find((j) => j.idx === index)!.tool_name;
    store.children.upsert({ context_id: plan.context_id, tool, profile: plan.profile, name: plan.name }, now);
  }
  return start;
}
