/**
 * Which calls wait in a Worker invocation rather than in an object, and when the chat counts such a
 * runner as lost (docs/architecture.md#where-calls-wait). Pure: the chat's dispatcher and heartbeat
 * apply these rules, the unit tests hold them.
 */
import { endsByTimer, type JobRow } from "../jobs/job";

/** The `lane` of a running call held by a Worker runner (a `calls` queue consumer): no object to ask. */
export const WORKER_RUNNER = -1;

/** How often a Worker runner renews the leases of the calls it holds. */
export const RENEW_EVERY_MS = 10_000;

/** A runner silent this long (three renewals missed) is lost: its calls are recovered by the attempt rules. */
export const RUNNER_LAPSES_AFTER_MS = 3 * RENEW_EVERY_MS;

/**
 * A queue consumer's invocation lives at most 15 minutes of wall clock (Cloudflare's limit, with
 * `ctx.waitUntil` extending it to that and no further). A call whose deadline falls later stays with
 * an object, which can hold it to the end: cut short, a side-effecting call would end "Outcome
 * unknown" where an object would have finished it.
 */
export const WORKER_RUNNER_LIFETIME_MS = 15 * 60_000;
/** Left of that lifetime for the queue's delivery, the claim and the last report. */
const LIFETIME_MARGIN_MS = 60_000;

/** Whether the call can wait its whole deadline in a Worker runner. */
export function fitsWorkerRunner(job: Pick<JobRow, "kind" | "tool_name" | "deadline_at">, now: number): boolean {
  if (job.kind !== "tool" || endsByTimer(job)) return false;
  return job.deadline_at - now <= WORKER_RUNNER_LIFETIME_MS - LIFETIME_MARGIN_MS;
}

/**
 * `ctx.waitUntil` keeps an invocation going this long after it has answered (or its client left),
 * and no longer (Cloudflare's limit); a fetch under way cannot move to another invocation.
 */
export const WAIT_UNTIL_GRACE_MS = 30_000;
/** Left of that grace for the hand-over and the last report. */
const GRACE_MARGIN_MS = 5_000;

/**
 * Where a call waits outside the objects: `direct` in an invocation the chat starts itself (its
 * deadline falls within that grace, so no queue message is on its path), `queued` in a queue
 * consumer's (its deadline falls within the consumer's lifetime), or nowhere (an object holds it).
 */
export function workerRunnerFor(job: Pick<JobRow, "kind" | "tool_name" | "deadline_at">, now: number): "direct" | "queued" | undefined {
  if (!fitsWorkerRunner(job, now)) return undefined;
  return job.deadline_at - now <= WAIT_UNTIL_GRACE_MS - GRACE_MARGIN_MS ? "direct" : "queued";
}

/** Whether a Worker runner's call, renewed last at `renewedAt` (or claimed then), has gone unrenewed too long. */
export function runnerLapsed(renewedAt: number | null, now: number): boolean {
  return renewedAt === null || now - renewedAt > RUNNER_LAPSES_AFTER_MS;
}
