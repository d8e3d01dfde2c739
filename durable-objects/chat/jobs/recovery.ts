/**
 * What the chat does with a running job that no live execution in this
 * instance holds: the instance that claimed it was lost (restart, deploy,
 * eviction) mid-call. The attempt rules of docs/api.md#attempts-and-retries; pure, so every rule is
 * unit-tested without a Durable Object.
 */
import { endsByTimer, type JobRow } from "../../../src/core/jobs/job";

export type Recovery =
  /** Nothing to do here: not running, past its deadline (the sweep ends it), or owned by its child chat. */
  | { step: "none" }
  /** A subordinate whose child chat never got its turn: hand it over (idempotent per parent job). */
  | { step: "hand" }
  /** Carry on with `attempt`: it provably never left, or the tool is safe to call again. */
  | { step: "resume"; attempt: number }
  /** The request may have reached a tool that must not run twice. */
  | { step: "outcome_unknown" };

export function recoveryStep(
  job: Pick<JobRow, "state" | "kind" | "tool_name" | "read_only" | "attempt" | "sent" | "deadline_at">,
  now: number,
): Recovery {
  if (job.state !== "running" || endsByTimer(job) || now >= job.deadline_at) return { step: "none" };
  if (job.kind === "subordinate") return job.sent > 0 ? { step: "none" } : { step: "hand" };
  if (job.sent < job.attempt) return { step: "resume", attempt: job.attempt };
  // `http_request` is never retried (docs/api.md#attempts-and-retries), even a GET.
  if (job.read_only === 1 && job.tool_name !== "http_request") return { step: "resume", attempt: job.attempt + 1 };
  return { step: "outcome_unknown" };
}
