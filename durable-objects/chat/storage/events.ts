/**
 * The chat's events (docs/api.md#hand-back-and-im-delivery, docs/api.md#events-and-webhooks) and their
 * webhook outbox. An event is
 * written in the same transaction as the change it announces, so a crash
 * loses nothing. A row keeps what is particular to its event, with the chat's
 * parent and root as they were then (NULL when the chat is its own root); the
 * tenant and chat id, the same in every row, are added back when it is read,
 * the same way each time, so a retry sends the same body. Each
 * event is delivered on its own schedule: a failing one never holds back the
 * next, and `seq` lets the receiver order them.
 *
 * A job's start and end with nowhere to deliver them (no webhook, no callback: most chats) write no
 * event row: their seq and id go on the job row, in the update that starts or ends the job, and
 * the event is built from the row when read, the same way it was when announced. Jobs purged
 * before their events would be hand them to the events table first (`keepFromJobs`).
 */
import { nanoid } from "nanoid";
import {
  EVENT_MAX_CHARS,
  eventEnvelope,
  withoutResults,
  type EventSource,
  type EventType,
  type JobEventType,
  type LiveEventType,
} from "../../../src/core/events/envelope";
import { jobFinishedData, jobStartedData } from "../../../src/core/events/job-events";
import { globMatch } from "../../../src/core/tools/glob";
import type { ChatLimits } from "../../../src/core/jobs/messages";
import {
  deliveryEntry,
  type DeliveryEntry,
  type DeliveryRow,
  type DeliveryStatus,
} from "../../../src/core/webhooks/deliveries";
import { jobRowDelivery, jobRowEvents, newestJobRowSeq, type JobEvent } from "./job-row-events";
import { readLimits, readMeta, writeMeta } from "./schema";
import { cached, LATEST_SEQ, remember } from "./sql-cache";

/** `none`: nowhere to deliver (no webhook for this chat); the live stream still carries it. */
export type EventStatus = "none" | "pending" | "delivered" | "failed";

/**
 * Events are kept 24 h, and at most the last 1000 per chat (docs/api.md#events-and-webhooks); undelivered
 * ones until they settle.
 */
export const EVENT_TTL_MS = 24 * 3600_000;
const EVENTS_KEPT = 1000;

export type OutboxEvent = {
  seq: number;
  id: string;
  type: EventType;
  body: string;
  batch_id: string | null;
  attempts: number;
  callback_url: string | null;
};

/** What an event row keeps (see the module comment). */
type StoredEvent = {
  id: string;
  type: string;
  created_at: number;
  seq: number;
  data: string;
  parent_chat_id: string | null;
  root_chat_id: string | null;
};

export type { JobEvent } from "./job-row-events";
export type { JobEventType };

const newEventId = () => `evt_${nanoid(21)}`;

const DELIVERY_COLUMNS = "id, type, seq, status, attempts, last_status, last_error, next_at, delivered_at, failed_at";

export class Events {
  constructor(private readonly sql: SqlStorage) {}

  /** Records an event (inside the caller's transaction): its envelope, and whether it waits for delivery. */
  record(
    type: EventType,
    data: Record<string, unknown>,
    now: number,
    batchId: string | null = null,
  ): { envelope: string; deliver: boolean; seq: number } {
    const seq = this.latestSeq() + 1;
    const { row, envelope } = this.#kept({ seq, id: newEventId() }, type, data, now);
    const deliver = this.#deliverable(batchId, type);
    this.sql.exec(
      `INSERT INTO events (seq, id, type, data, created_at, batch_id, status, next_at, parent_chat_id,
         root_chat_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      seq,
      row.id,
      type,
      row.data,
      now,
      batchId,
      deliver ? "pending" : "none",
      deliver ? now : null,
      row.parent_chat_id,
      row.root_chat_id,
    );
    remember(this.sql, LATEST_SEQ, seq);
    return { envelope, deliver, seq };
  }

  /**
   * The seq and id of a job's start or end event that nothing waits to deliver: the caller writes
   * them on the job row in the update that starts or ends it, and no event row is written (rows
   * written are billed; the event is read back off the job). Undefined when a webhook or the
   * batch's callback waits for it: then `record` writes its row.
   */
  onJobRow(batchId: string, type: JobEventType): JobEvent | undefined {
    if (this.#deliverable(batchId, type)) return undefined;
    const seq = this.latestSeq() + 1;
    remember(this.sql, LATEST_SEQ, seq);
    return { seq, id: newEventId() };
  }

  /** Hands back what `onJobRow` gave out for an update that changed nothing: seq stays without a gap. */
  unused(event: JobEvent): void {
    if (this.latestSeq() === event.seq) remember(this.sql, LATEST_SEQ, event.seq - 1);
  }

  /** The envelope of an event kept on its job row (see `onJobRow`); nothing is written here. */
  envelopeOnJob(event: JobEvent, type: JobEventType, data: Record<string, unknown>, now: number): string {
    return this.#kept(event, type, data, now).envelope;
  }

  /** An event as it is kept, and its envelope: past `EVENT_MAX_CHARS` its result texts are left out. */
  #kept(
    event: JobEvent,
    type: EventType,
    data: Record<string, unknown>,
    now: number,
  ): { row: StoredEvent; envelope: string } {
    const { parent_chat_id, root_chat_id } = this.#lineage();
    const row = {
      id: event.id,
      type,
      created_at: now,
      seq: event.seq,
      data: JSON.stringify(data),
      parent_chat_id,
      root_chat_id,
    };
    let envelope = this.#envelope(row, data);
    if (envelope.length > EVENT_MAX_CHARS) {
      const cut = withoutResults(data);
      row.data = JSON.stringify(cut);
      envelope = this.#envelope(row, cut);
    }
    return { row, envelope };
  }

  /** The chat's parent and root as they are now (root NULL when the chat is its own). */
  #lineage(): { parent_chat_id: string | null; root_chat_id: string | null } {
    const chatId = readMeta(this.sql, "chat_id")!;
    const root = readMeta(this.sql, "root_chat_id");
    return {
      parent_chat_id: readMeta(this.sql, "parent_chat_id") ?? null,
      root_chat_id: root === undefined || root === chatId ? null : root,
    };
  }

  /**
   * Whether an event waits for delivery: a webhook for this chat, or its batch's callback, and a type
   * `webhook.events` sends (the others are kept and streamed, never sent).
   */
  #deliverable(batchId: string | null, type: EventType): boolean {
    const only = (readLimits(this.sql) as Partial<ChatLimits> | undefined)?.webhook_events;
    if (only && !only.some((glob) => globMatch(glob, type))) return false;
    return this.#webhookOn(type) || (batchId !== null && this.#hasCallbacks() && this.callbackUrl(batchId) !== null);
  }

  /** The envelope of a live-only event (see `EVENT_TYPES`): nothing is written. */
  live(type: LiveEventType, data: Record<string, unknown>, now: number): string {
    return this.#envelope(
      { id: newEventId(), type, created_at: now, seq: this.latestSeq(), data: "", ...this.#lineage() },
      data,
    );
  }

  /**
   * Top-level chats go to `webhook.url`; child chats only with `include_child_chats`, except their
   * approval events: the bot that talks to the person must see those (docs/api.md#approvals).
   */
  #webhookOn(type: EventType): boolean {
    const limits: Partial<ChatLimits> = readLimits(this.sql) ?? {};
    const child = Number(readMeta(this.sql, "level") ?? 0) > 0;
    if (type.startsWith("job.approval_")) return limits.webhooks !== undefined && limits.webhooks !== "none";
    return limits.webhooks === "all" || (limits.webhooks === "top-level" && !child);
  }

  /**
   * The envelope of a stored event: its own fields, and the chat's, in the order every envelope has
   * them. `data`: the row's data when the caller still has it as an object (spares a parse).
   */
  #envelope(row: StoredEvent, data = JSON.parse(row.data) as Record<string, unknown>): string {
    const chat_id = readMeta(this.sql, "chat_id")!;
    const source: EventSource = {
      tenant: readMeta(this.sql, "tenant")!,
      chat_id,
      parent_chat_id: row.parent_chat_id,
      root_chat_id: row.root_chat_id ?? chat_id,
    };
    return JSON.stringify(eventEnvelope(row.id, row.type as EventType, row.created_at, source, row.seq, data));
  }

  /** A request's delivery options, kept with its batch. */
  addBatch(batchId: string, callbackUrl: string | null, notify: string | null, now: number): void {
    if (callbackUrl === null && notify === null) return;
    this.sql.exec(
      `INSERT OR IGNORE INTO batches (batch_id, callback_url, notify, created_at) VALUES (?, ?, ?, ?)`,
      batchId,
      callbackUrl,
      notify,
      now,
    );
    if (callbackUrl !== null) remember(this.sql, "callbacks", true);
  }

  /** Whether any batch was started with a `callback_url` (most chats never use one): saves a lookup per event. */
  #hasCallbacks(): boolean {
    return cached(
      this.sql,
      "callbacks",
      () => this.sql.exec(`SELECT 1 FROM batches WHERE callback_url IS NOT NULL LIMIT 1`).toArray().length > 0,
    );
  }

  callbackUrl(batchId: string): string | null {
    return (
      this.sql
        .exec<{ url: string | null }>(`SELECT callback_url AS url FROM batches WHERE batch_id = ?`, batchId)
        .toArray()[0]?.url ?? null
    );
  }

  notify(batchId: string): string | null {
    return (
      this.sql.exec<{ notify: string | null }>(`SELECT notify FROM batches WHERE batch_id = ?`, batchId).toArray()[0]
        ?.notify ?? null
    );
  }

  /** Events due for an attempt, oldest first. */
  due(now: number, limit: number): OutboxEvent[] {
    return this.sql
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
        body: this.#envelope(row),
      }));
  }

  nextDue(): number | undefined {
    return (
      this.sql.exec<{ at: number | null }>(`SELECT MIN(next_at) AS at FROM events WHERE status = 'pending'`).one().at ??
      undefined
    );
  }

  pendingCount(): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM events WHERE status = 'pending'`).one().n;
  }

  delivered(seq: number, status: number, now: number): void {
    this.sql.exec(
      `UPDATE events
         SET status = 'delivered', attempts = attempts + 1, last_status = ?, next_at = NULL, delivered_at = ?
         WHERE seq = ?`,
      status,
      now,
      seq,
    );
  }

  retry(seq: number, status: number | null, error: string, at: number): void {
    this.sql.exec(
      `UPDATE events SET attempts = attempts + 1, last_status = ?, last_error = ?, next_at = ? WHERE seq = ?`,
      status,
      error,
      at,
      seq,
    );
  }

  /** `counted`: false when no attempt was made (the webhook was already disabled). */
  failed(seq: number, status: number | null, error: string, now: number, counted = true): void {
    this.sql.exec(
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
  undeliverable(seq: number): void {
    this.sql.exec(`UPDATE events SET status = 'none', next_at = NULL WHERE seq = ?`, seq);
  }

  /**
   * Kept events with a webhook target in one delivery state, oldest first
   * (docs/api.md#deliveries-redelivery-and-a-test-event).
   */
  deliveries(status: DeliveryStatus): DeliveryEntry[] {
    return this.sql
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
  delivery(id: string): DeliveryRow | undefined {
    const row = this.sql.exec<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM events WHERE id = ?`, id).toArray()[0];
    return row ?? jobRowDelivery(this.sql, id);
  }

  /**
   * Puts a settled event back in the outbox as if it had just happened: same id, seq and body, a
   * fresh attempt schedule (the retry delays count from the first again), due now.
   */
  redeliver(seq: number, now: number): void {
    this.sql.exec(
      `UPDATE events
         SET status = 'pending', attempts = 0, next_at = ?, last_status = NULL, last_error = NULL, delivered_at
         = NULL, failed_at = NULL
       WHERE seq = ?`,
      now,
      seq,
    );
  }

  /** Envelopes after `seq`, for the live stream: event rows and the events kept on job rows, in seq order. */
  after(seq: number, limit: number, now: number): { seq: number; body: string }[] {
    const rows = this.sql
      .exec<StoredEvent>(
        `SELECT seq, id, type, created_at, data, parent_chat_id, root_chat_id FROM events WHERE seq > ?
           ORDER BY seq LIMIT ?`,
        seq,
        limit,
      )
      .toArray();
    const stored = new Set(rows.map((row) => row.seq));
    return [...rows, ...this.#onJobs(seq, limit, now).filter((e) => !stored.has(e.seq))]
      .sort((a, b) => a.seq - b.seq)
      .slice(0, limit)
      .map((row) => ({ seq: row.seq, body: this.#envelope(row) }));
  }

  /**
   * Events kept on job rows after `seq` (at most `limit` of each kind), as rows of `events` would
   * hold them. Only what an event row would still be kept for: the last day, the last 1000 seqs.
   */
  #onJobs(seq: number, limit: number, now: number, only?: string[]): StoredEvent[] {
    const after = Math.max(seq, this.latestSeq() - EVENTS_KEPT);
    return jobRowEvents(this.sql, after, now - EVENT_TTL_MS, limit, only).map((e) => {
      const data = e.type === "job.started" ? jobStartedData(e.job) : jobFinishedData(e.job, e.cut);
      return this.#kept(e, e.type, data, e.at).row;
    });
  }

  /**
   * Jobs about to be purged (their retention can be shorter than a day) hand the events kept on
   * their rows to the events table, which keeps them as long as any other.
   */
  keepFromJobs(jobIds: string[], now: number): void {
    for (let i = 0; i < jobIds.length; i += 90)
      this.#toRows(this.#onJobs(0, 2 * EVENTS_KEPT, now, jobIds.slice(i, i + 90)));
  }

  /**
   * The chat's parent and root are about to change (a top-level chat becomes somebody's child):
   * events kept on job rows, which are read with the chat's lineage as it is, become event rows
   * first, with the lineage they were announced with. Rare: once in a chat's life at most.
   */
  beforeLineageChange(now: number): void {
    this.#toRows(this.#onJobs(0, 2 * EVENTS_KEPT, now));
  }

  /** Event rows for events kept on job rows; the job rows keep theirs, and a read prefers the event row (`after`). */
  #toRows(events: StoredEvent[]): void {
    for (const row of events) {
      this.sql.exec(
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

  /**
   * The last seq given out, purged or not (0 before the first event): the newest row's or job's, or what a
   * purge kept in `meta`.
   */
  latestSeq(): number {
    return cached(this.sql, LATEST_SEQ, () => {
      const rows = this.sql.exec<{ n: number | null }>(`SELECT MAX(seq) AS n FROM events`).one().n ?? 0;
      return Math.max(rows, newestJobRowSeq(this.sql), Number(readMeta(this.sql, "events_seq") ?? 0));
    });
  }

  /** The oldest seq still kept, if any: an event row's, or one kept on a job row. */
  oldestSeq(now: number): number | undefined {
    const row = this.sql.exec<{ s: number | null }>(`SELECT MIN(seq) AS s FROM events`).one().s ?? Infinity;
    const onJob = this.#onJobs(0, 1, now).reduce((min, e) => Math.min(min, e.seq), Infinity);
    const oldest = Math.min(row, onJob);
    return Number.isFinite(oldest) ? oldest : undefined;
  }

  oldestSettled(): number | undefined {
    return (
      this.sql.exec<{ at: number | null }>(`SELECT MIN(created_at) AS at FROM events WHERE status != 'pending'`).one()
        .at ?? undefined
    );
  }

  /** Drops settled events past the TTL or beyond the last 1000, and batches whose jobs are gone. */
  purge(now: number): void {
    // The newest event may go: a cursor past it must still mean "after it", so its seq stays known.
    writeMeta(this.sql, "events_seq", String(this.latestSeq()));
    this.sql.exec(`DELETE FROM events WHERE status != 'pending' AND created_at <= ?`, now - EVENT_TTL_MS);
    // The last 1000 by seq: events kept on job rows count too.
    this.sql.exec(`DELETE FROM events WHERE status != 'pending' AND seq <= ?`, this.latestSeq() - EVENTS_KEPT);
    // A batch's callback_url outlives its jobs while its events are kept: a redelivery goes there too.
    this.sql.exec(
      `DELETE FROM batches WHERE batch_id NOT IN (SELECT batch_id FROM jobs)
         AND batch_id NOT IN (SELECT batch_id FROM events WHERE status != 'none' AND batch_id IS NOT NULL)`,
    );
  }
}
