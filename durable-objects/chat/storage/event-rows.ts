/**
 * What an event row keeps and how it becomes the envelope that is sent, streamed and replayed
 * (`./events` writes the rows). A row keeps only what is particular to its event, with the chat's
 * parent and root as they were then; the tenant and chat id are added back on every read, the same
 * way each time, so a retry or a replay sends the same body as the first announcement.
 */
import { nanoid } from "nanoid";
import {
  EVENT_MAX_CHARS,
  eventEnvelope,
  withoutResults,
  type EventSource,
  type EventType,
} from "../../../src/core/events/envelope";
import { newestJobRowSeq, type JobEvent } from "./job-row-events";
import { readMeta } from "./schema";
import { cached, LATEST_SEQ } from "./sql-cache";

/**
 * Events are kept 24 h, and at most the last 1000 per chat (docs/api.md#events-and-webhooks); undelivered
 * ones until they settle.
 */
export const EVENT_TTL_MS = 24 * 3600_000;
export const EVENTS_KEPT = 1000;

/** What an event row keeps (see the module comment). */
export type StoredEvent = {
  id: string;
  type: string;
  created_at: number;
  seq: number;
  data: string;
  parent_chat_id: string | null;
  root_chat_id: string | null;
};

export const newEventId = () => `evt_${nanoid(21)}`;

/** The chat's parent and root as they are now (root NULL when the chat is its own). */
export function lineage(sql: SqlStorage): { parent_chat_id: string | null; root_chat_id: string | null } {
  const chatId = readMeta(sql, "chat_id")!;
  const root = readMeta(sql, "root_chat_id");
  return {
    parent_chat_id: readMeta(sql, "parent_chat_id") ?? null,
    root_chat_id: root === undefined || root === chatId ? null : root,
  };
}

/**
 * The envelope of a stored event: its own fields, and the chat's, in the order every envelope has
 * them. `data`: the row's data when the caller still has it as an object (spares a parse).
 */
export function storedEnvelope(
  sql: SqlStorage,
  row: StoredEvent,
  data = JSON.parse(row.data) as Record<string, unknown>,
): string {
  const chat_id = readMeta(sql, "chat_id")!;
  const source: EventSource = {
    tenant: readMeta(sql, "tenant")!,
    chat_id,
    parent_chat_id: row.parent_chat_id,
    root_chat_id: row.root_chat_id ?? chat_id,
  };
  return JSON.stringify(eventEnvelope(row.id, row.type as EventType, row.created_at, source, row.seq, data));
}

/** An event as it is kept, and its envelope: past `EVENT_MAX_CHARS` its result texts are left out. */
export function keptEvent(
  sql: SqlStorage,
  event: JobEvent,
  type: EventType,
  data: Record<string, unknown>,
  now: number,
): { row: StoredEvent; envelope: string } {
  const { parent_chat_id, root_chat_id } = lineage(sql);
  const row = {
    id: event.id,
    type,
    created_at: now,
    seq: event.seq,
    data: JSON.stringify(data),
    parent_chat_id,
    root_chat_id,
  };
  let envelope = storedEnvelope(sql, row, data);
  if (envelope.length > EVENT_MAX_CHARS) {
    const cut = withoutResults(data);
    row.data = JSON.stringify(cut);
    envelope = storedEnvelope(sql, row, cut);
  }
  return { row, envelope };
}

/**
 * The last seq given out, purged or not (0 before the first event): the newest row's or job's, or what a
 * purge kept in `meta`.
 */
export function latestSeq(sql: SqlStorage): number {
  return cached(sql, LATEST_SEQ, () => {
    const rows = sql.exec<{ n: number | null }>(`SELECT MAX(seq) AS n FROM events`).one().n ?? 0;
    return Math.max(rows, newestJobRowSeq(sql), Number(readMeta(sql, "events_seq") ?? 0));
  });
}
