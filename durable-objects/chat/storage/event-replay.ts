/**
 * Events kept on job rows, read back as the event rows they stand for. A job's start and end with
 * nowhere to deliver them write no event row (rows written are billed): their seq and id go on the
 * job row, and the event is built from the row when read, by the same functions that announced it,
 * so a replay is what was sent live. Before the job rows go, or before the chat's lineage changes
 * under them, they are written out as event rows so nothing read later differs.
 */
import { jobFinishedData, jobStartedData } from "../../../src/core/events/job-events";
import { EVENT_TTL_MS, EVENTS_KEPT, keptEvent, latestSeq, type StoredEvent, storedEnvelope } from "./event-rows";
import { jobRowEvents } from "./job-row-events";

/**
 * Events kept on job rows after `seq` (at most `limit` of each kind), as rows of `events` would
 * hold them. Only what an event row would still be kept for: the last day, the last 1000 seqs.
 */
export function onJobs(sql: SqlStorage, seq: number, limit: number, now: number, only?: string[]): StoredEvent[] {
  const after = Math.max(seq, latestSeq(sql) - EVENTS_KEPT);
  return jobRowEvents(sql, after, now - EVENT_TTL_MS, limit, only).map((e) => {
    const data = e.type === "job.started" ? jobStartedData(e.job) : jobFinishedData(e.job, e.cut);
    return keptEvent(sql, e, e.type, data, e.at).row;
  });
}

/** Envelopes after `seq`, for the live stream: event rows and the events kept on job rows, in seq order. */
export function eventsAfter(sql: SqlStorage, seq: number, limit: number, now: number): { seq: number; body: string }[] {
  const rows = sql
    .exec<StoredEvent>(
      `SELECT seq, id, type, created_at, data, parent_chat_id, root_chat_id FROM events WHERE seq > ?
         ORDER BY seq LIMIT ?`,
      seq,
      limit,
    )
    .toArray();
  const stored = new Set(rows.map((row) => row.seq));
  return [...rows, ...onJobs(sql, seq, limit, now).filter((e) => !stored.has(e.seq))]
    .sort((a, b) => a.seq - b.seq)
    .slice(0, limit)
    .map((row) => ({ seq: row.seq, body: storedEnvelope(sql, row) }));
}

/**
 * Jobs about to be purged (their retention can be shorter than a day) hand the events kept on
 * their rows to the events table, which keeps them as long as any other.
 */
export function keepFromJobs(sql: SqlStorage, jobIds: string[], now: number): void {
  for (let i = 0; i < jobIds.length; i += 90)
    toRows(sql, onJobs(sql, 0, 2 * EVENTS_KEPT, now, jobIds.slice(i, i + 90)));
}

/**
 * The chat's parent and root are about to change (a top-level chat becomes somebody's child):
 * events kept on job rows, which are read with the chat's lineage as it is, become event rows
 * first, with the lineage they were announced with. Rare: once in a chat's life at most.
 */
export function beforeLineageChange(sql: SqlStorage, now: number): void {
  toRows(sql, onJobs(sql, 0, 2 * EVENTS_KEPT, now));
}

/** Event rows for events kept on job rows; the job rows keep theirs, and a read prefers the event row (`after`). */
function toRows(sql: SqlStorage, events: StoredEvent[]): void {
  for (const row of events) {
    sql.exec(
      `INSERT OR IGNORE INTO events (seq, id, type, data, created_at, status, parent_chat_id, root_chat_id)
         VALUES (?, ?, ?, ?, ?, 'none', ?, ?)`,
      row.seq,
      row.id,
      row.type,
      row.data,
      row.created_at,
      row.parent_chat_id,
      row.root_chat_id,
    );
  }
}
