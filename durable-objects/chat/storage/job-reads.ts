/**
 * The reads of a chat's jobs table (their log rows are read off them, `./log-rows`). `JobStore`
 * builds on this class, so callers keep one object for their jobs while each concern reads alone.
 * Every method is synchronous (cursors are read fully before returning), so callers can compose
 * them inside one `transactionSync` with no `await` in between.
 */
import type { JobRow, WaitReason } from "../../../src/core/jobs/job";
import { ACTIVE_STATES_SQL } from "../../../src/core/api/job-states";
import { ACTIVE, COLUMNS, ROW, runningClock, waitingAt, type ActiveCounts, type JobToEnd } from "./job-columns";

type UsageColumns = Pick<JobRow, "usage" | "kind" | "attempt" | "completed_at">;

export class JobReads {
  constructor(protected readonly sql: SqlStorage) {}

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

  /** Active jobs, and those of them not started yet (at a gate, or queued for their turn or a slot). */
  activeCounts(): { active: number; waiting: number } {
    const row = this.sql
      .exec<{ active: number; waiting: number | null }>(
        `SELECT COUNT(*) AS active, SUM(state = 'pending') AS waiting FROM jobs WHERE ${ACTIVE}`,
      )
      .one();
    return { active: row.active, waiting: row.waiting ?? 0 };
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
export function* boundChunks(ids: string[]): Generator<[string[], string]> {
  for (let i = 0; i < ids.length; i += 90) {
    const chunk = ids.slice(i, i + 90);
    yield [chunk, chunk.map(() => "?").join(",")];
  }
}
