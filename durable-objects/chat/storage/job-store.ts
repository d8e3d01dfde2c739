/**
 * SQL access to a chat's jobs (their log rows are read off them, `./log-rows`). Every method is synchronous
 * (cursors are read fully before returning), so callers can compose them inside
 * one `transactionSync` with no `await` in between.
 */
import { GATES, isTerminal, type JobRow, type WaitReason } from "../../../src/core/jobs/job";
import { ACTIVE_STATES_SQL } from "../../../src/core/api/job-states";
import type { JobEvent } from "./events";
import {
  ACTIVE,
  COLUMNS,
  ROW,
  runningClock,
  waitingAt,
  type ActiveCounts,
  type EndGuard,
  type Finish,
  type JobToEnd,
  type NewJob,
} from "./job-columns";

type UsageColumns = Pick<JobRow, "usage" | "kind" | "attempt" | "completed_at">;

export class JobStore {
  constructor(private readonly sql: SqlStorage) {}

  insert(job: NewJob): void {
    this.sql.exec(
      `INSERT INTO jobs (job_id, chat_id, batch_id, idx, tool_name, tool_call_id, tool_args, kind, state, read_only,
         timeout_seconds, created_at, deadline_at, context_id, spec, waiting_for, tree_slot, wait_seq, log_id, log_type, metadata, flow,
         approval, approval_sync, budget)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?,
         CASE WHEN ? THEN (SELECT COALESCE(MAX(wait_seq), 0) + 1 FROM jobs) END, ?, ?, ?, ?, ?, CASE WHEN ? IS NULL THEN NULL ELSE 1 END, ?)`,
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
    );
  }

  get(jobId: string): JobRow | undefined {
    return this.sql.exec<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE job_id = ?`, jobId).toArray()[0];
  }

  /**
   * What a reported outcome is checked against (and the sizes its stored result must leave room
   * for). The rest of the row comes back from the update that ends the job: a report reads no
   * more than it needs, since every call ends with one.
   */
  toEnd(jobId: string): JobToEnd | undefined {
    return this.sql
      .exec<JobToEnd>(
        `SELECT job_id, batch_id, state, lease, deadline_at, tool_args, spec FROM jobs WHERE job_id = ?`,
        jobId,
      )
      .toArray()[0];
  }

  /**
   * Up to `limit` jobs, newest first (by acceptance, then batch, then call order), older than the
   * job `before` when given: none when that job is not kept.
   */
  newestFirst(limit: number, before: string | null): JobRow[] {
    return this.sql
      .exec<JobRow>(
        `SELECT ${ROW} FROM jobs
         WHERE ?1 IS NULL OR (created_at, batch_id, idx) < (SELECT created_at, batch_id, idx FROM jobs WHERE job_id = ?1)
         ORDER BY created_at DESC, batch_id DESC, idx DESC LIMIT ?2`,
        before,
        limit,
      )
      .toArray();
  }

  /** A job with its MCP content parts, for the full record. */
  withContent(jobId: string): (JobRow & { content: string | null }) | undefined {
    return this.sql
      .exec<JobRow & { content: string | null }>(`SELECT ${COLUMNS}, content FROM jobs WHERE job_id = ?`, jobId)
      .toArray()[0];
  }

  /** Rows for `ids`, in the order given; unknown ids are absent. */
  many(ids: string[]): JobRow[] {
    const found = new Map<string, JobRow>();
    for (const [chunk, marks] of boundChunks(ids)) {
      for (const row of this.sql.exec<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE job_id IN (${marks})`, ...chunk))
        found.set(row.job_id, row);
    }
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  /** Active jobs and finished ones no response has carried yet, oldest first. */
  visible(): JobRow[] {
    return this.sql
      .exec<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE ${ACTIVE} OR collected_at IS NULL ORDER BY created_at, idx`)
      .toArray();
  }

  /** The jobs of one request, in call order. */
  byBatch(batchId: string): JobRow[] {
    return this.sql.exec<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE batch_id = ? ORDER BY idx`, batchId).toArray();
  }

  active(): JobRow[] {
    return this.sql.exec<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE ${ACTIVE} ORDER BY created_at, idx`).toArray();
  }

  /** Jobs whose deadline is running (see `runningClock`) and has come. */
  pastDeadline(now: number): JobRow[] {
    return this.sql
      .exec<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE ${runningClock()} AND deadline_at <= ?`, now)
      .toArray();
  }

  /** The next deadline among jobs whose deadline is running, if any. */
  nextDeadline(): number | undefined {
    return (
      this.sql.exec<{ at: number | null }>(`SELECT MIN(deadline_at) AS at FROM jobs WHERE ${runningClock()}`).one()
        .at ?? undefined
    );
  }

  /**
   * What is still active once a job of `batchId` ended, in one read (every job's end asks): the
   * chat's jobs, the batch's, and the batch's not waiting for their tier and waiting for it.
   */
  activeAround(batchId: string): ActiveCounts {
    const row = this.sql
      .exec<ActiveCounts>(
        `SELECT COUNT(*) AS chat, COALESCE(SUM(batch_id = ?1), 0) AS batch,
           COALESCE(SUM(batch_id = ?1 AND waiting_for IS NOT 'tier'), 0) AS released,
           COALESCE(SUM(batch_id = ?1 AND ${waitingAt("tier")}), 0) AS tier
         FROM jobs WHERE ${ACTIVE}`,
        batchId,
      )
      .one();
    return { chat: row.chat, batch: row.batch, released: row.released, tier: row.tier };
  }

  activeCount(): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM jobs WHERE ${ACTIVE}`).one().n;
  }

  /** The chat's latest job moment (an acceptance, a claim or an end), if any job is kept. */
  lastActivity(): number | null {
    return this.sql
      .exec<{ at: number | null }>(
        `SELECT MAX(MAX(created_at), COALESCE(MAX(started_at), 0), COALESCE(MAX(completed_at), 0)) AS at FROM jobs`,
      )
      .one().at;
  }

  count(): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM jobs`).one().n;
  }

  /** Active subordinate jobs, queued ones included. */
  activeSubordinates(): JobRow[] {
    return this.sql
      .exec<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE kind = 'subordinate' AND ${ACTIVE} ORDER BY created_at, idx`)
      .toArray();
  }

  /** The jobs waiting at `reason`'s gate, next to go first. */
  waitingAt(reason: WaitReason): JobRow[] {
    return this.sql
      .exec<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE ${waitingAt(reason)} ORDER BY wait_seq, created_at, idx`)
      .toArray();
  }

  /** The first job of a batch waiting for its tier, once none of the batch's others is still active. */
  nextInTier(batchId: string): JobRow | undefined {
    const busy = this.sql
      .exec<{ n: number }>(
        `SELECT COUNT(*) AS n FROM jobs WHERE batch_id = ? AND waiting_for IS NOT 'tier' AND ${ACTIVE}`,
        batchId,
      )
      .one().n;
    if (busy > 0) return undefined;
    return this.sql
      .exec<JobRow>(
        `SELECT ${COLUMNS} FROM jobs WHERE batch_id = ? AND ${waitingAt("tier")} ORDER BY idx LIMIT 1`,
        batchId,
      )
      .toArray()[0];
  }

  /**
   * A waiting job leaves its gate with its deadline and the tree slot it was given, if any: it may
   * start (`next` null), or it waits at the next gate it has to pass.
   */
  release(jobId: string, deadlineAt: number, treeSlot: string | null, next: WaitReason | null = null): void {
    this.sql.exec(
      `UPDATE jobs SET waiting_for = ?, wait_seq = NULL, deadline_at = ?, tree_slot = COALESCE(?, tree_slot)
         WHERE job_id = ? AND state = 'pending'`,
      next,
      deadlineAt,
      treeSlot,
      jobId,
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

  running(): JobRow[] {
    return this.sql
      .exec<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE ${ACTIVE} AND state = 'running' ORDER BY created_at, idx`)
      .toArray();
  }

  /** Jobs that should have started (waiting at no gate) and are still pending. */
  undispatched(): JobRow[] {
    return this.sql
      .exec<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE ${ACTIVE} AND state = 'pending' AND waiting_for IS NULL`)
      .toArray();
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
           progress = NULL, content = ?, finished_seq = ?, finished_event = ?, finished_cut = ?
         WHERE job_id = ? AND ${ACTIVE} AND (?14 IS NULL OR (lease = ?14 AND deadline_at > ?15
           AND length(CAST(tool_args AS BLOB)) + COALESCE(length(CAST(spec AS BLOB)), 0) <= ?16))
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

  /** Jobs not started yet that count against the budget of top-level chat `rootChat`'s batch `batchId`. */
  pendingUnderBudget(rootChat: string, batchId: string): JobRow[] {
    return this.sql
      .exec<JobRow>(
        `SELECT ${ROW}, NULL AS queue_position FROM jobs WHERE state = 'pending' AND completed_at IS NULL
           AND budget IS NOT NULL
           AND json_extract(budget, '$.root_chat') = ? AND json_extract(budget, '$.batch_id') = ?`,
        rootChat,
        batchId,
      )
      .toArray();
  }

  /** What every ended job kept took (docs/api.md#usage-and-cost). */
  endedUsage(): UsageColumns[] {
    return this.sql
      .exec<UsageColumns>(`SELECT usage, kind, attempt, completed_at FROM jobs WHERE completed_at IS NOT NULL`)
      .toArray();
  }

  /** Terminal jobs finished at or before `cutoff`: the purge candidates. */
  finishedBefore(cutoff: number): string[] {
    return this.sql
      .exec<{ job_id: string }>(
        `SELECT job_id FROM jobs WHERE state NOT IN (${ACTIVE_STATES_SQL}) AND completed_at <= ?`,
        cutoff,
      )
      .toArray()
      .map((r) => r.job_id);
  }

  oldestFinished(): number | undefined {
    const row = this.sql
      .exec<{ at: number | null }>(`SELECT MIN(completed_at) AS at FROM jobs WHERE state NOT IN (${ACTIVE_STATES_SQL})`)
      .one();
    return row.at ?? undefined;
  }

  delete(jobIds: string[]): void {
    for (const id of jobIds) {
      this.sql.exec(`DELETE FROM jobs WHERE job_id = ?`, id);
    }
  }

  /** Those of `ids` still active, in no particular order, reading no more than their ids. */
  stillActive(ids: string[]): string[] {
    const active: string[] = [];
    for (const [chunk, marks] of boundChunks(ids)) {
      for (const row of this.sql.exec<{ job_id: string }>(
        `SELECT job_id FROM jobs WHERE job_id IN (${marks}) AND ${ACTIVE}`,
        ...chunk,
      ))
        active.push(row.job_id);
    }
    return active;
  }
}

/**
 * `ids` in pieces one statement can bind (≤ 100 parameters, docs/architecture.md#platform-rules), each with
 * its `?` list.
 */
function* boundChunks(ids: string[]): Generator<[string[], string]> {
  for (let i = 0; i < ids.length; i += 90) {
    const chunk = ids.slice(i, i + 90);
    yield [chunk, chunk.map(() => "?").join(",")];
  }
}
