/**
 * The webhook outbox's bookkeeping on the events table: which events are due, and how each attempt
 * is recorded (docs/api.md#events-and-webhooks, docs/api.md#deliveries-redelivery-and-a-test-event).
 * Each event is delivered on its own schedule: a failing one never holds back the next, and `seq`
 * lets the receiver order them. `Events` answers for these, so the outbox sees one events table.
 */
import type { EventType } from "../../../src/core/events/envelope";
import {
  deliveryEntry,
  type DeliveryEntry,
  type DeliveryRow,
  type DeliveryStatus,
} from "../../../src/core/webhooks/deliveries";
import { type StoredEvent, storedEnvelope } from "./event-rows";
import { jobRowDelivery } from "./job-row-events";

export type OutboxEvent = {
  seq: number;
  id: string;
  type: EventType;
  body: string;
  batch_id: string | null;
  attempts: number;
  callback_url: string | null;
};

const DELIVERY_COLUMNS = "id, type, seq, status, attempts, last_status, last_error, next_at, delivered_at, failed_at";

/** Events due for an attempt, oldest first. */
export function dueEvents(sql: SqlStorage, now: number, limit: number): OutboxEvent[] {
  return sql
    .exec<StoredEvent & Omit<OutboxEvent, "body">>(
      `SELECT e.seq, e.id, e.type, e.data, e.created_at, e.parent_chat_id, e.root_chat_id, e.batch_id,
         e.attempts, b.callback_url
       FROM events e LEFT JOIN batches b ON b.batch_id = e.batch_id
       WHERE e.status = 'pending' AND e.next_at <= ? ORDER BY e.seq LIMIT ?`,
      now,
      limit,
    )
    .toArray()
    .map((row) => ({
      seq: row.seq,
      id: row.id,
      type: row.type,
      batch_id: row.batch_id,
      attempts: row.attempts,
      callback_url: row.callback_url,
      body: storedEnvelope(sql, row),
    }));
}

export function nextDue(sql: SqlStorage): number | undefined {
  return (
    sql.exec<{ at: number | null }>(`SELECT MIN(next_at) AS at FROM events WHERE status = 'pending'`).one().at ??
    undefined
  );
}

export function pendingCount(sql: SqlStorage): number {
  return sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM events WHERE status = 'pending'`).one().n;
}

export function markDelivered(sql: SqlStorage, seq: number, status: number, now: number): void {
  sql.exec(
    `UPDATE events
       SET status = 'delivered', attempts = attempts + 1, last_status = ?, next_at = NULL, delivered_at = ?
       WHERE seq = ?`,
    status,
    now,
    seq,
  );
}

export function markRetry(sql: SqlStorage, seq: number, status: number | null, error: string, at: number): void {
  sql.exec(
    `UPDATE events SET attempts = attempts + 1, last_status = ?, last_error = ?, next_at = ? WHERE seq = ?`,
    status,
    error,
    at,
    seq,
  );
}

/** `counted`: false when no attempt was made (the webhook was already disabled). */
export function markFailed(
  sql: SqlStorage,
  seq: number,
  status: number | null,
  error: string,
  now: number,
  counted: boolean,
): void {
  sql.exec(
    `UPDATE events
       SET status = 'failed', attempts = attempts + ?, last_status = ?, last_error = ?, next_at = NULL,
       failed_at = ? WHERE seq = ?`,
    counted ? 1 : 0,
    status,
    error,
    now,
    seq,
  );
}

/** The webhook was removed from the configuration: nothing to deliver to. */
export function markUndeliverable(sql: SqlStorage, seq: number): void {
  sql.exec(`UPDATE events SET status = 'none', next_at = NULL WHERE seq = ?`, seq);
}

/**
 * Kept events with a webhook target in one delivery state, oldest first
 * (docs/api.md#deliveries-redelivery-and-a-test-event).
 */
export function deliveriesIn(sql: SqlStorage, status: DeliveryStatus): DeliveryEntry[] {
  return sql
    .exec<DeliveryRow & { status: DeliveryStatus }>(
      `SELECT ${DELIVERY_COLUMNS} FROM events WHERE status = ? ORDER BY seq`,
      status,
    )
    .toArray()
    .map(deliveryEntry);
}

/**
 * The delivery state of the event with this id (events are few per chat: no index needed). One kept on its
 * job row has none.
 */
export function deliveryOf(sql: SqlStorage, id: string): DeliveryRow | undefined {
  const row = sql.exec<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM events WHERE id = ?`, id).toArray()[0];
  return row ?? jobRowDelivery(sql, id);
}

/**
 * Puts a settled event back in the outbox as if it had just happened: same id, seq and body, a
 * fresh attempt schedule (the retry delays count from the first again), due now.
 */
export function redeliver(sql: SqlStorage, seq: number, now: number): void {
  sql.exec(
    `UPDATE events
       SET status = 'pending', attempts = 0, next_at = ?, last_status = NULL, last_error = NULL, delivered_at
       = NULL, failed_at = NULL
     WHERE seq = ?`,
    now,
    seq,
  );
}
