/**
 * The chat's event log (docs/api.md#hand-back-and-im-delivery, docs/api.md#events-and-webhooks). An
 * event is written in the same transaction as the change it announces, so a crash loses nothing.
 * What a row keeps and how it is read back is in `./event-rows`; the webhook outbox's bookkeeping
 * in `./event-deliveries`; events kept on job rows in `./event-replay`. This class answers for all
 * of them, so the rest of the chat sees one events table.
 *
 * A job's start and end with nowhere to deliver them (no webhook, no callback: most chats) write no
 * event row: their seq and id go on the job row, in the update that starts or ends the job, and
 * the event is built from the row when read, the same way it was when announced. Jobs purged
 * before their events would be hand them to the events table first (`keepFromJobs`).
 */
import type { EventType, JobEventType, LiveEventType } from "../../../src/core/events/envelope";
import { globMatch } from "../../../src/core/tools/glob";
import type { ChatLimits } from "../../../src/core/jobs/messages";
import type { DeliveryEntry, DeliveryRow, DeliveryStatus } from "../../../src/core/webhooks/deliveries";
import * as deliveries from "./event-deliveries";
import * as replay from "./event-replay";
import { EVENT_TTL_MS, EVENTS_KEPT, keptEvent, latestSeq, lineage, newEventId, storedEnvelope } from "./event-rows";
import type { JobEvent } from "./job-row-events";
import { readLimits, readMeta, writeMeta } from "./schema";
import type { BatchRows } from "./batch-rows";
import { LATEST_SEQ, remember } from "./sql-cache";

/** `none`: nowhere to deliver (no webhook for this chat); the live stream still carries it. */
export type EventStatus = "none" | "pending" | "delivered" | "failed";

export { EVENT_TTL_MS };
export type { OutboxEvent } from "./event-deliveries";
export type { JobEvent } from "./job-row-events";
export type { JobEventType };

export class Events {
  constructor(
    private readonly sql: SqlStorage,
    /** Where a batch's events go besides the webhook (its `callback_url`). */
    private readonly batches: BatchRows,
  ) {}

  /** Records an event (inside the caller's transaction): its envelope, and whether it waits for delivery. */
  record(
    type: EventType,
    data: Record<string, unknown>,
    now: number,
    batchId: string | null = null,
  ): { envelope: string; deliver: boolean; seq: number } {
    const seq = this.latestSeq() + 1;
    const { row, envelope } = keptEvent(this.sql, { seq, id: newEventId() }, type, data, now);
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
    return keptEvent(this.sql, event, type, data, now).envelope;
  }

  /**
   * Whether an event waits for delivery: a webhook for this chat, or its batch's callback, and a type
   * `webhook.events` sends (the others are kept and streamed, never sent).
   */
  #deliverable(batchId: string | null, type: EventType): boolean {
    const only = (readLimits(this.sql) as Partial<ChatLimits> | undefined)?.webhook_events;
    // A spending alert goes to the webhook whatever it filters (docs/api.md#spending-limits).
    if (only && type !== "tenant.spend_alert" && !only.some((glob) => globMatch(glob, type))) return false;
    return (
      this.#webhookOn(type) ||
      (batchId !== null && this.batches.hasCallbacks() && this.batches.callbackUrl(batchId) !== null)
    );
  }

  /** The envelope of a live-only event (see `EVENT_TYPES`): nothing is written. */
  live(type: LiveEventType, data: Record<string, unknown>, now: number): string {
    return storedEnvelope(
      this.sql,
      { id: newEventId(), type, created_at: now, seq: this.latestSeq(), data: "", ...lineage(this.sql) },
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
    if (type.startsWith("job.approval_") || type === "tenant.spend_alert")
      return limits.webhooks !== undefined && limits.webhooks !== "none";
    return limits.webhooks === "all" || (limits.webhooks === "top-level" && !child);
  }

  // The outbox's bookkeeping (`./event-deliveries`).

  due(now: number, limit: number): deliveries.OutboxEvent[] {
    return deliveries.dueEvents(this.sql, now, limit);
  }

  nextDue(): number | undefined {
    return deliveries.nextDue(this.sql);
  }

  pendingCount(): number {
    return deliveries.pendingCount(this.sql);
  }

  delivered(seq: number, status: number, now: number): void {
    deliveries.markDelivered(this.sql, seq, status, now);
  }

  retry(seq: number, status: number | null, error: string, at: number): void {
    deliveries.markRetry(this.sql, seq, status, error, at);
  }

  failed(seq: number, status: number | null, error: string, now: number, counted = true): void {
    deliveries.markFailed(this.sql, seq, status, error, now, counted);
  }

  undeliverable(seq: number): void {
    deliveries.markUndeliverable(this.sql, seq);
  }

  deliveries(status: DeliveryStatus): DeliveryEntry[] {
    return deliveries.deliveriesIn(this.sql, status);
  }

  delivery(id: string): DeliveryRow | undefined {
    return deliveries.deliveryOf(this.sql, id);
  }

  redeliver(seq: number, now: number): void {
    deliveries.redeliver(this.sql, seq, now);
  }

  // Events kept on job rows (`./event-replay`).

  after(seq: number, limit: number, now: number): { seq: number; body: string }[] {
    return replay.eventsAfter(this.sql, seq, limit, now);
  }

  keepFromJobs(jobIds: string[], now: number): void {
    replay.keepFromJobs(this.sql, jobIds, now);
  }

  beforeLineageChange(now: number): void {
    replay.beforeLineageChange(this.sql, now);
  }

  latestSeq(): number {
    return latestSeq(this.sql);
  }

  /** The oldest seq still kept, if any: an event row's, or one kept on a job row. */
  oldestSeq(now: number): number | undefined {
    const row = this.sql.exec<{ s: number | null }>(`SELECT MIN(seq) AS s FROM events`).one().s ?? Infinity;
    const onJob = replay.onJobs(this.sql, 0, 1, now).reduce((min, e) => Math.min(min, e.seq), Infinity);
    const oldest = Math.min(row, onJob);
    return Number.isFinite(oldest) ? oldest : undefined;
  }

  oldestSettled(): number | undefined {
    return (
      this.sql.exec<{ at: number | null }>(`SELECT MIN(created_at) AS at FROM events WHERE status != 'pending'`).one()
        .at ?? undefined
    );
  }

  /** Drops settled events past the TTL or beyond the last 1000. */
  purge(now: number): void {
    // The newest event may go: a cursor past it must still mean "after it", so its seq stays known.
    writeMeta(this.sql, "events_seq", String(this.latestSeq()));
    this.sql.exec(`DELETE FROM events WHERE status != 'pending' AND created_at <= ?`, now - EVENT_TTL_MS);
    // The last 1000 by seq: events kept on job rows count too.
    this.sql.exec(`DELETE FROM events WHERE status != 'pending' AND seq <= ?`, this.latestSeq() - EVENTS_KEPT);
  }
}
