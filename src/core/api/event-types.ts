/**
 * Every type of event a chat announces (docs/api.md#events-and-webhooks), the one list: the wire
 * schema (`./events.ts`) gives each its `data` and is held to this list by the compiler; the
 * client's types are generated from that schema (/openapi.json); docs/api.md's table and the rest
 * of the source are held to it by test/source/event-types.test.ts. Its order is the schema's.
 *
 * `live`: sent only to live streams, never kept as an event row, replayed on resume or delivered
 * to webhooks (its `seq` is that of the chat's latest kept event, so a client that resumes after it
 * misses nothing kept). `onJobRow`: a job's start and end, which with nowhere to deliver them are
 * kept on the job's row instead of an event row (`durable-objects/chat/storage/events.ts`). Not
 * here: `webhook.test`, which `POST /v1/webhook/test` sends about the tenant, and a stream's
 * `cursor.expired`, neither an event of a chat.
 */
export const EVENT_TYPES = {
  "chat.created": {},
  "chat.updated": {},
  "job.started": { onJobRow: true },
  "job.finished": { onJobRow: true },
  "job.progress": { live: true },
  "batch.finished": {},
  "subagent.started": {},
  "subagent.finish": {},
  "chat.idle": {},
  "job.approval_requested": {},
  "batch.budget_exhausted": {},
  "job.approval_decided": {},
  "tenant.spend_alert": {},
} as const satisfies Record<string, { live?: true; onJobRow?: true }>;

/** Any type of event, kept or live. */
export type AnyEventType = keyof typeof EVENT_TYPES;
type Where<P> = { [T in AnyEventType]: (typeof EVENT_TYPES)[T] extends P ? T : never }[AnyEventType];
/** An event kept as a row (or on its job's row), replayed on resume, delivered to webhooks. */
export type EventType = Exclude<AnyEventType, LiveEventType>;
/** An event sent only to live streams. */
export type LiveEventType = Where<{ live: true }>;
/** A job's start or end: kept on its job's row when nothing waits to deliver it. */
export type JobEventType = Where<{ onJobRow: true }>;

/** The types, in the list's order. */
export const eventTypes = Object.keys(EVENT_TYPES) as [AnyEventType, ...AnyEventType[]];
