/**
 * The events a job keeps on its own row (`./events`: a job's start and end that nothing waits to
 * deliver): the reads of the jobs table that find them. `./event-replay` turns what these return into
 * the rows `events` would hold.
 */
import type { JobEventType } from "../../../src/core/events/envelope";
import type { JobRow } from "../../../src/core/jobs/job";
import type { DeliveryRow } from "../../../src/core/webhooks/deliveries";

/** A job's start or end event kept on its job row: its seq and id, written by the job's own update. */
export type JobEvent = { seq: number; id: string };

/** One such event, with the job it is built from (`cut`: the `max_result_chars` it ended under). */
export type JobRowEvent = JobEvent & { type: JobEventType; at: number; job: JobRow; cut: number };

/** What `jobStartedData` and `jobFinishedData` read off a job (an ended job is never queued). */
const EVENT_JOB_COLUMNS = `job_id, batch_id, tool_name, tool_call_id, context_id, state, created_at, started_at, completed_at,
  result, result_truncated, error, usage, progress, NULL AS queue_position`;

/**
 * Events kept on job rows with a seq after `after` and a time after `since`, at most `limit` of
 * each kind; `only`: of these jobs (at most 90 ids, the bound-parameter limit leaves room).
 */
export function jobRowEvents(
  sql: SqlStorage,
  after: number,
  since: number,
  limit: number,
  only?: string[],
): JobRowEvent[] {
  const ids = only ? ` AND job_id IN (${only.map(() => "?").join(",")})` : "";
  const read = (kind: "started" | "finished", at: "started_at" | "completed_at") =>
    sql
      .exec<JobRow & { event_seq: number; event_id: string; cut: number | null }>(
        `SELECT ${EVENT_JOB_COLUMNS}, ${kind}_seq AS event_seq, ${kind}_event AS event_id, finished_cut AS cut
         FROM jobs WHERE ${kind}_seq > ? AND ${at} > ?${ids} ORDER BY ${kind}_seq LIMIT ?`,
        after,
        since,
        ...(only ?? []),
        limit,
      )
      .toArray()
      .map(
        (job): JobRowEvent => ({
          type: `job.${kind}`,
          seq: job.event_seq,
          id: job.event_id,
          at: job[at]!,
          job,
          cut: job.cut ?? 0,
        }),
      );
  return [...read("started", "started_at"), ...read("finished", "completed_at")];
}

/** The delivery state of the event with this id when a job row keeps it: none, there was nowhere to deliver it. */
export function jobRowDelivery(sql: SqlStorage, id: string): DeliveryRow | undefined {
  const row = sql
    .exec<{ started: string | null; started_seq: number; finished_seq: number }>(
      `SELECT started_event AS started, started_seq, finished_seq FROM jobs WHERE started_event = ?
         OR finished_event = ?`,
      id,
      id,
    )
    .toArray()[0];
  if (!row) return undefined;
  const started = row.started === id;
  const none = { attempts: 0, last_status: null, last_error: null, next_at: null, delivered_at: null, failed_at: null };
  return {
    id,
    type: started ? "job.started" : "job.finished",
    seq: started ? row.started_seq : row.finished_seq,
    status: "none",
    ...none,
  };
}

/** The newest seq a job row keeps, 0 when none does (a scan: read once per object, see `Events.latestSeq`). */
export function newestJobRowSeq(sql: SqlStorage): number {
  const row = sql
    .exec<{ s: number | null; f: number | null }>(`SELECT MAX(started_seq) AS s, MAX(finished_seq) AS f FROM jobs`)
    .one();
  return Math.max(row.s ?? 0, row.f ?? 0);
}
