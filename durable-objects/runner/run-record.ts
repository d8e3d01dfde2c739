/**
 * What a runner stores about its job, and what it does when it wakes up and
 * finds that no live execution holds the job (SPEC §4 attempt rules). Pure, so
 * every recovery rule is unit-tested without a Durable Object.
 */
import type { ClaimResult, JobMessage, JobOutcome } from "../../src/jobs/messages";

/** Each job a runner holds is one key-value record, deleted once the chat has its outcome. */
export const RECORD_PREFIX = "run/";
export const recordKey = (jobId: string) => `${RECORD_PREFIX}${jobId}`;

export type Claimed = Extract<ClaimResult, { status: "claimed" }>;

export interface RunRecord {
  message: JobMessage;
  claim: Claimed | null;
  /** The attempt the runner is on (from 1). */
  attempt: number;
  /** The highest attempt whose request may have left this runner. */
  sent: number;
  /** Kept until the ChatDO has acknowledged it, so a failed report is retried, never lost. */
  outcome?: JobOutcome;
}

export type Recovery =
  /** Re-send the stored outcome. */
  | { step: "report" }
  /** The claim never completed: claim again (the ChatDO returns the same lease). */
  | { step: "claim" }
  /** Past the deadline: the ChatDO ends the job `timeout`; just clean up. */
  | { step: "clear" }
  /** Carry on with `attempt`: it provably never left, or the tool is safe to call again. */
  | { step: "resume"; attempt: number }
  /** The request may have reached a tool that must not run twice. */
  | { step: "outcome_unknown" };

export function recoveryStep(record: RunRecord, now: number): Recovery {
  if (record.outcome) return { step: "report" };
  const claim = record.claim;
  if (!claim) return { step: "claim" };
  if (now >= claim.deadline_at) return { step: "clear" };
  // Handing a subordinate to its child chat is idempotent: always safe to repeat.
  if (record.sent < record.attempt || claim.kind === "subordinate") return { step: "resume", attempt: record.attempt };
  // `http_request` is never retried (SPEC §4), even a GET.
  if (claim.read_only && claim.tool_name !== "http_request") return { step: "resume", attempt: record.attempt + 1 };
  return { step: "outcome_unknown" };
}
