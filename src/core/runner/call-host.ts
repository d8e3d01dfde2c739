/**
 * Where a tool call runs: the one rule (docs/architecture.md#where-a-call-runs). Every host runs the
 * same runner (`./call-runner`) under the same lease (`./lease`); what differs is only how long a host
 * can hold a call and what it costs while the call waits. Pure: the chat's dispatcher applies it, the
 * unit tests hold it.
 *
 * - `invocation`: a Worker invocation the chat starts itself, for a call whose deadline falls within
 *   the grace `ctx.waitUntil` gives an invocation after it answered. No queue message on its path.
 * - `queue`: a `calls` queue consumer, for a deadline within a consumer's lifetime (15 minutes).
 * - `object`: a runner object of the chat's (`durable-objects/runner/`), for longer deadlines only:
 *   an object is billed every second a call waits, a Worker invocation only for its CPU.
 */

export type CallHost = "invocation" | "queue" | "object";

/**
 * `ctx.waitUntil` keeps an invocation going this long after it has answered (or its client left),
 * and no longer (Cloudflare's limit); a fetch under way cannot move to another invocation.
 */
export const WAIT_UNTIL_GRACE_MS = 30_000;
/** Left of that grace for the hand-over and the last report. */
const GRACE_MARGIN_MS = 5_000;

/**
 * A queue consumer's invocation lives at most 15 minutes of wall clock (`ctx.waitUntil` extends it to
 * that and no further). Cut short there, a side-effecting call would end "Outcome unknown" where an
 * object would have finished it, so a later deadline goes to an object.
 */
export const WORKER_RUNNER_LIFETIME_MS = 15 * 60_000;
/** Left of that lifetime for the queue's delivery, the claim and the last report. */
const LIFETIME_MARGIN_MS = 60_000;

/** The hosts this deployment has: a build without the `DirectRunner` entrypoint or the `calls` queue does without. */
export interface Hosts {
  invocation: boolean;
  queue: boolean;
}

const ALL_HOSTS: Hosts = { invocation: true, queue: true };

/**
 * The host of a tool call with this deadline, counted from now (a recovered call near its end goes to a
 * nearer host).
 */
export function callHost(deadlineAt: number, now: number, hosts: Hosts = ALL_HOSTS): CallHost {
  const left = deadlineAt - now;
  if (hosts.invocation && left <= WAIT_UNTIL_GRACE_MS - GRACE_MARGIN_MS) return "invocation";
  if (hosts.queue && left <= WORKER_RUNNER_LIFETIME_MS - LIFETIME_MARGIN_MS) return "queue";
  return "object";
}
