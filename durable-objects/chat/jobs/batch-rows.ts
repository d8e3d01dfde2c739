/**
 * Writing an admitted batch: the rows, log rows, child rows and timers of a batch (inside the
 * caller's transaction). A job that waits at a gate (`../gates`) starts when the gate lets it go.
 */
import { GATES, type WaitReason } from "../../../src/core/jobs/job";
import type { SubordinatePlan } from "../storage/children";
import type { ChatStore } from "../storage/chat-store";
import type { AdmittedBatch } from "./admission";

/**
 * Gates whose waiting calls ask an object (`gates/flow.ts`, `gates/budget.ts`), among those `jobs` wait at: a
 * new batch asks them beside its answer.
 */
export const askedAtOnce = (jobs: readonly { waiting_for: WaitReason | null }[]): WaitReason[] =>
  GATES.reasons.filter((reason) => GATES.rule(reason).due === "at_once" && jobs.some((j) => j.waiting_for === reason));
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
export function insertBatch(
  store: ChatStore,
  batch: AdmittedBatch,
  plans: Map<number, SubordinatePlan>,
  now: number,
  askAt = now,
): string[] {
  const start: string[] = [];
  let deadline = Infinity;
  store.timers.unparkJobWatches(now); // before the rows: only a chat with no active job has parked watches
  const gates = new Map<WaitReason, number>();
  for (const job of batch.jobs) {
    store.jobs.insert(job);
    if (job.waiting_for === null) {
      start.push(job.job_id);
      deadline = Math.min(deadline, job.deadline_at);
      continue;
    }
    const due = GATES.dueAt(job.waiting_for, job, askAt);
    if (due !== undefined) gates.set(job.waiting_for, Math.min(due, gates.get(job.waiting_for) ?? Infinity));
    // A job whose gate holds its deadline back starts it when the gate lets it go.
    if (GATES.rule(job.waiting_for).clock === "from_acceptance") deadline = Math.min(deadline, job.deadline_at);
  }
  if (deadline < Infinity) store.timers.setEarliest("deadline", "", deadline);
  for (const [reason, at] of gates) store.timers.setEarliest("gate", reason, at);
  if (start.length) store.timers.setEarliest("dispatch", "", now + DISPATCH_WATCHDOG_MS);
  for (const [index, plan] of plans) {
    const tool = batch.jobs.find((j) => j.idx === index)!.tool_name;
    store.children.upsert({ context_id: plan.context_id, tool, profile: plan.profile, name: plan.name }, now);
  }
  return start;
}
