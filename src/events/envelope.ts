/**
 * Events (SPEC §6): what a chat announces, in one envelope for webhooks and
 * the live stream. `seq` increases per chat, so a receiver can order events
 * that arrive out of order (a retried one never holds back the next).
 */
export const EVENT_TYPES = [
  "job.started",
  "job.finished",
  "batch.finished",
  "subagent.started",
  "subagent.finish",
  "chat.idle",
  "chat.created",
  "chat.updated",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Where an event comes from: in every event's `data`. */
export interface EventSource {
  tenant: string;
  chat_id: string;
  parent_chat_id: string | null;
  root_chat_id: string;
}

export interface EventEnvelope {
  id: string;
  type: EventType;
  timestamp: string;
  data: EventSource & { seq: number } & Record<string, unknown>;
}

export function eventEnvelope(id: string, type: EventType, now: number, source: EventSource, seq: number, data: Record<string, unknown>): EventEnvelope {
  return { id, type, timestamp: new Date(now).toISOString(), data: { ...source, seq, ...data } };
}
