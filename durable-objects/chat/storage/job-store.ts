/**
 * SQL access to a chat's jobs: the writes of a job's life outside its runner (admission, its gates,
 * approvals and flow, its end, its purge). The reads are in `./job-reads` and the runner's columns in
 * `./job-leases`; this class builds on both, so callers keep one object for their jobs. Every method
 * is synchronous (cursors are read fully before returning), so callers can compose them inside one
 * `transactionSync` with no `await` in between.
 */
import { GATES, isTerminal, type JobRow, type WaitReason } from "../../../src/core/jobs/job";
import type { JobEvent } from "./events";
import { ACTIVE, ROW, type EndGuard, type Finish, type NewJob } from "./job-columns";
import { JobLeases } from "./job-leases";
import { boundChunks } from "./job-reads";

export class JobStore extends JobLeases {
  insert(job: NewJob): void {
    this.sql.exec(
      `INSERT INTO jobs (job_id, chat_id, batch_id, idx, tool_name, tool_call_id, tool_args, kind, state, read_only,
         timeout_seconds, created_at, deadline_at, context_id, spec, waiting_for, tree_slot, wait_seq, log_id, log_type, metadata, flow,
         approval, approval_sync, budget, trace, rerun_of, spend)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?,
         CASE WHEN ? THEN (SELECT COALESCE(MAX(wait_seq), 0) + 1 FROM jobs) END, ?, ?, ?, ?, ?, CASE WHEN ? IS NULL THEN NULL ELSE 1 END, ?, ?, ?, ?)`,
      job.job_id,
      job.chat_id,
      job.batch_id,
      job.idx,
      job.tool_name,
      job.tool_call_id,
      job.tool_args,
      job.kind,
      job.read_only ? 1 : 0,
      job.timeout_seconds,
      job.created_at,
      job.deadline_at,
      job.context_id,
      job.spec,
      job.waiting_for,
      job.tree_slot ?? null,
      job.waiting_for !== null && GATES.rule(job.waiting_for).order === "arrival" ? 1 : 0,
      job.log_id,
      job.log_type,
      job.metadata,
      job.flow,
      job.approval,
      job.approval,
      job.budget,
      job.trace ?? null,
      job.rerun_of ?? null,
      job.spend ?? null,
    );
  }

  /**
   * A waiting job leaves its gate with its deadline and the tree slot it was given, if any: it may
   * start (`next` null), or it waits at the next gate it has to pass.
   */
  release(
    jobId: string,
    deadlineAt: number,
    treeSlot: string | null,
    next: WaitReason | null = null,
    now = Date.now(),
  ): void {
    // The job notes the gate it leaves, and when (its record's `waited`), and so does a job whose spans
    // are exported (its `fanout.wait` events), in the same write.
    this.sql.exec(
      `UPDATE jobs SET waiting_for = ?, wait_seq = NULL, deadline_at = ?, tree_slot = COALESCE(?, tree_slot),
         waits = CASE WHEN waiting_for IS NULL THEN waits
           ELSE json_insert(COALESCE(waits, '[]'), '$[#]', json_array(waiting_for, ?5)) END,
         trace = CASE WHEN waiting_for IS NULL OR json_extract(trace, '$.x') IS NOT 1 THEN trace
           ELSE json_insert(trace, '$.w[#]', json_array(waiting_for, ?5)) END
         WHERE job_id = ?4 AND state = 'pending'`,
      next,
      deadlineAt,
      treeSlot,
      jobId,
      now,
    );
  }

  /** A call's approval was decided: the row keeps it, and the tenant's list of approvals is owed the news. */
  setApproval(jobId: string, approval: string): void {
    this.sql.exec(`UPDATE jobs SET approval = ?, approval_sync = 1 WHERE job_id = ?`, approval, jobId);
  }

  /** A call under an approval rule ended: the tenant's list is owed the news. */
  markApprovalChanged(jobId: string): void {
    this.sql.exec(`UPDATE jobs SET approval_sync = 1 WHERE job_id = ? AND approval IS NOT NULL`, jobId);
  }

  /** Calls whose approval (or end) the tenant's list has not heard yet. Few rows carry an approval: no index. */
  approvalsToReport(limit: number): JobRow[] {
    return this.sql.exec<JobRow>(`SELECT ${ROW} FROM jobs WHERE approval_sync = 1 LIMIT ?`, limit).toArray();
  }

  /** The tenant's list heard this approval and state of the call; a change since stays owed. */
  approvalReported(jobId: string, approval: string, state: string): void {
    this.sql.exec(
      `UPDATE jobs SET approval_sync = NULL WHERE job_id = ? AND approval = ? AND state = ?`,
      jobId,
      approval,
      state,
    );
  }

  /** A job's flow state changed (the rule it waits at, or that it holds its slots). */
  setFlow(jobId: string, flow: string): void {
    this.sql.exec(`UPDATE jobs SET flow = ? WHERE job_id = ? AND state = 'pending'`, flow, jobId);
  }

  /**
   * Ends an active job; its row as it is now, or undefined when it had ended already. A job
   * already terminal is left untouched. Its progress goes in the same write: shown only while active.
   * `finished`: its job.finished event, when it is kept on this row, with the `max_result_chars` it is cut at.
   */
  finish(
    jobId: string,
    f: Finish,
    now: number,
    finished?: JobEvent & { cut: number },
    guard?: EndGuard,
  ): JobRow | undefined {
    // A job that has ended waits for nothing: its queue_position is NULL without the subquery.
    return this.sql
      .exec<JobRow>(
        `UPDATE jobs SET state = ?, completed_at = ?, started_at = COALESCE(started_at, ?), result = ?,
           result_truncated = ?, error = ?, attempt = MAX(attempt, ?), usage = COALESCE(?, usage), lease = NULL,
           progress = NULL, content = ?, finished_seq = ?, finished_event = ?, finished_cut = ?, error_type = ?
         WHERE job_id = ? AND ${ACTIVE} AND (?15 IS NULL OR (lease = ?15 AND deadline_at > ?16
           AND length(CAST(tool_args AS BLOB)) + COALESCE(length(CAST(spec AS BLOB)), 0) <= ?17))
         RETURNING ${ROW}, NULL AS queue_position`,
        f.state,
        now,
        now,
        f.result ?? null,
        f.result_truncated ? 1 : 0,
        f.error ?? null,
        f.attempt ?? 0,
        f.usage === undefined ? null : JSON.stringify(f.usage),
        f.content ?? null,
        finished?.seq ?? null,
        finished?.id ?? null,
        finished?.cut ?? null,
        f.state === "success" ? null : f.error_type,
        jobId,
        guard?.lease ?? null,
        guard?.before ?? null,
        guard?.besideAtMost ?? null,
      )
      .toArray()[0];
  }

  /** A running job's latest progress (JSON); false when the job is no longer running (nothing written). */
  setProgress(jobId: string, progress: string): boolean {
    return (
      this.sql.exec(`UPDATE jobs SET progress = ? WHERE job_id = ? AND state = 'running'`, progress, jobId)
        .rowsWritten > 0
    );
  }

  markCollected(jobs: JobRow[], now: number): void {
    const ids = jobs.filter((job) => isTerminal(job.state) && job.collected_at === null).map((job) => job.job_id);
    for (const [chunk, marks] of boundChunks(ids))
      this.sql.exec(`UPDATE jobs SET collected_at = ? WHERE job_id IN (${marks})`, now, ...chunk);
  }

  delete(jobIds: string[]): void {
    for (const id of jobIds) {
      this.sql.exec(`DELETE FROM jobs WHERE job_id = ?`, id);
    }
  }
}
