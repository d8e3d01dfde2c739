/**
 * The columns a running call's runner and lease live in: the claim that starts it, its attempts,
 * the runner it is in, and the renewals that keep it there. Apart from the rest of a job's writes so
 * that a lease rule changes here alone: past the claim, only the chat's side of its runners
 * (`../jobs/runners`) writes them. `JobStore` builds on this class, so callers keep one object for their jobs.
 */
import type { JobEvent } from "./events";
import { JobReads } from "./job-reads";

export class JobLeases extends JobReads {
  /**
   * A claimed tool call leaves at once for its runner (whose lease counts as renewed at the claim):
   * its attempt counts as sent from the claim on. `started`: its job.started event, when it is kept
   * on this row.
   */
  claim(
    jobId: string,
    attempt: number,
    lease: string,
    now: number,
    runner: number | null = null,
    started?: JobEvent,
  ): void {
    this.sql.exec(
      `UPDATE jobs SET state = 'running', started_at = ?, attempt = ?, lease = ?,
         sent = CASE WHEN kind = 'tool' THEN ? ELSE 0 END, runner = ?, renewed_at = ?, started_seq = ?, started_event = ?
       WHERE job_id = ? AND state = 'pending'`,
      now,
      attempt,
      lease,
      attempt,
      runner,
      now,
      started?.seq ?? null,
      started?.id ?? null,
      jobId,
    );
  }

  /** The next attempt, settled as not sent yet (a retry backing off). */
  setAttempt(jobId: string, attempt: number): void {
    this.sql.exec(`UPDATE jobs SET attempt = ? WHERE job_id = ? AND state = 'running'`, attempt, jobId);
  }

  /** `attempt` may have left (a tool), or the child chat has the turn (a subordinate). */
  markSent(jobId: string, attempt: number): void {
    this.sql.exec(
      `UPDATE jobs SET attempt = ?, sent = ? WHERE job_id = ? AND state = 'running'`,
      attempt,
      attempt,
      jobId,
    );
  }

  /** A recovered call goes on in `runner`, its lease counted as renewed now. */
  setRunner(jobId: string, runner: number, now = Date.now()): void {
    this.sql.exec(
      `UPDATE jobs SET runner = ?, renewed_at = ? WHERE job_id = ? AND state = 'running'`,
      runner,
      now,
      jobId,
    );
  }

  /**
   * A runner silent too long, or one the hand-over may not have reached, is taken to be lost: its
   * call leaves it under a new lease, so if that runner is alive after all, its attempts, renewals
   * and outcome are all refused.
   */
  takeFromRunner(jobId: string, lease: string): void {
    this.sql.exec(
      `UPDATE jobs SET runner = NULL, lease = ? WHERE job_id = ? AND state = 'running' AND runner IS NOT NULL`,
      lease,
      jobId,
    );
  }

  /** A runner renewed the lease of its running call. */
  renew(jobId: string, now: number): void {
    this.sql.exec(`UPDATE jobs SET renewed_at = ? WHERE job_id = ? AND state = 'running'`, now, jobId);
  }
}
