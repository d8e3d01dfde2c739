/**
 * The one liveness rule of every runner (docs/architecture.md#where-a-call-runs): a runner renews the
 * leases of the calls it holds every `RENEW_EVERY_MS`; one silent for `RUNNER_LAPSES_AFTER_MS` is
 * lost, and the chat recovers its calls by the attempt rules. Pure: the chat's heartbeat applies it,
 * the unit tests hold it.
 */

/** The `runner` of a running call held by a Worker invocation (one the chat started, or a `calls` consumer). */
export const WORKER_RUNNER = -1;

/** How often a runner renews the leases of the calls it holds. */
export const RENEW_EVERY_MS = 10_000;

/** A runner silent this long (three renewals missed) is lost: its calls are recovered by the attempt rules. */
export const RUNNER_LAPSES_AFTER_MS = 3 * RENEW_EVERY_MS;

/** Whether a runner's call, renewed last at `renewedAt` (or claimed then), has gone unrenewed too long. */
export function runnerLapsed(renewedAt: number | null, now: number): boolean {
  return renewedAt === null || now - renewedAt > RUNNER_LAPSES_AFTER_MS;
}
