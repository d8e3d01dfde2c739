/**
 * Retention (docs/api.md#jobs-and-their-lifecycle, docs/api.md#idempotency): terminal jobs, their log rows
 * and idempotency
 * records go after `retention_seconds`; idempotency records live at least 24 h
 * and until their jobs are purged. A chat left with nothing is deleted whole,
 * so it returns to its baseline storage size.
 */
import type { Idempotency } from "./idempotency";
import type { JobStore } from "./job-store";
import type { Turns } from "./turns";

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

/** When the next purge is due, or undefined when nothing will expire. */
export function nextPurgeAt(
  jobs: JobStore,
  idempotency: Idempotency,
  turns: Turns,
  retentionMs: number,
  now: number,
): number | undefined {
  const at = Math.min(
    (jobs.oldestFinished() ?? Infinity) + retentionMs,
    (idempotency.oldestAfter(now - IDEMPOTENCY_TTL_MS) ?? Infinity) + IDEMPOTENCY_TTL_MS,
    // A child chat with no jobs left is kept while its conversation may still be continued.
    (jobs.count() === 0 ? (turns.idleSince() ?? Infinity) : Infinity) + retentionMs,
  );
  return Number.isFinite(at) ? Math.max(at, now) : undefined;
}

/**
 * Deletes what expired; `empty` when the chat holds nothing any more. `outlive` is handed the jobs
 * about to go first: what they hold that is kept longer than they are (their events).
 */
export function purgeExpired(
  jobs: JobStore,
  idempotency: Idempotency,
  turns: Turns,
  retentionMs: number,
  now: number,
  outlive: (jobIds: string[]) => void = () => {},
): "empty" | "kept" {
  const expired = jobs.finishedBefore(now - retentionMs);
  outlive(expired);
  jobs.delete(expired);
  idempotency.purge(now - IDEMPOTENCY_TTL_MS, (ids) => jobs.many(ids).length === 0);
  if (jobs.count() > 0 || idempotency.count() > 0 || turns.hasRunning()) return "kept";
  const idle = turns.idleSince();
  return idle === undefined || idle <= now - retentionMs ? "empty" : "kept";
}
