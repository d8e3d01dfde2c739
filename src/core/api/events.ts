/**
 * Wire schemas of events (docs/api.md#events-and-webhooks), for `/openapi.json`: the envelope webhooks
 * deliver and live streams send, the tenant stream's messages, and the tickets
 * a browser opens a stream with.
 */
import { z } from "zod";
import { jobState, progress, requestMetadata, resultsPayload, snapshot, traceId, usage } from "./jobs";
import { eventTypes, type AnyEventType } from "./event-types";
import { handedToolCalls } from "./batches";

export const ticketRequest = z.object({
  chat_id: z.string().optional().describe("Limit the ticket to this chat's stream."),
});
export const ticketAnswer = z.object({ ticket: z.string(), expires_in: z.literal(60) });

/**
 * What every event's `data` starts with; `truncated` when result texts were left out
 * (docs/api.md#events-and-webhooks).
 */
const eventData = <T extends z.core.$ZodLooseShape>(own: T) =>
  z.looseObject({
    tenant: z.string(),
    chat_id: z.string(),
    parent_chat_id: z.string().nullable(),
    root_chat_id: z.string(),
    seq: z.number().int().describe("Increases per chat: order events by it, since retries can reorder deliveries."),
    truncated: z
      .literal(true)
      .optional()
      .describe("Result texts were left out to keep the event under 256 KiB: await or read the jobs."),
    ...own,
    trace_id: traceId.optional(),
  });

const event = <K extends string, T extends z.core.$ZodLooseShape>(type: K, own: T) =>
  z.object({
    id: z.string().describe("evt_…; also the webhook-id header of a delivery."),
    type: z.literal(type),
    timestamp: z.string(),
    data: eventData(own),
  });

const metadata = requestMetadata.optional();
const subagentFields = {
  job_id: z.string(),
  tool_call_id: z.string().optional(),
  context_id: z.string(),
  agent: z.string(),
  label: z.string(),
  metadata,
};

/**
 * Each event type's own `data` fields, and what to say of the event, if anything: one entry for
 * every type of `EVENT_TYPES` (`./event-types.ts`), the one list, and no other (the compiler
 * holds the keys to it).
 */
const EVENT_DATA: { [T in AnyEventType]: { data: z.core.$ZodLooseShape; about?: string } } = {
  "chat.created": { data: { name: z.string(), level: z.number().int() } },
  "chat.updated": { data: { name: z.string() } },
  "job.started": {
    data: {
      job_id: z.string(),
      batch_id: z.string(),
      tool_name: z.string(),
      tool_call_id: z.string().optional(),
      context_id: z.string().optional(),
      metadata,
    },
  },
  "job.finished": { data: { batch_id: z.string(), ...snapshot.shape, metadata } },
  "job.progress": {
    data: { job_id: z.string(), batch_id: z.string(), tool_name: z.string(), progress, metadata },
    about:
      "Live streams only: never kept, replayed or sent to webhooks; its `seq` is that of the chat's latest kept event.",
  },
  "batch.finished": {
    data: {
      batch_id: z.string(),
      rerun_of: z
        .string()
        .optional()
        .describe("A rerun's batch: the batch it reran; its results are the whole batch, carried-over jobs included."),
      results: resultsPayload,
      usage: usage
        .optional()
        .describe("The batch's jobs and their subtrees (events kept from before it was added lack it)."),
      metadata,
      context: z
        .unknown()
        .optional()
        .describe("The `context` a `/tool-calls` request handed with the batch, as it was given."),
      tool_calls: handedToolCalls.optional(),
    },
  },
  "subagent.started": { data: subagentFields },
  "subagent.finish": {
    data: {
      ...subagentFields,
      status: jobState,
      result: z.string().nullable().optional(),
      result_truncated: z.literal(true).optional(),
      error: z.string().nullable().optional(),
      usage: usage.nullable(),
    },
  },
  "chat.idle": { data: {} },
  "job.approval_requested": {
    data: {
      batch_id: z.string(),
      ...snapshot.shape,
      tool_args: z.record(z.string(), z.unknown()),
      agent: z.string().describe("The agent profile that made the call."),
      approval_expires_at: z.string(),
      metadata,
    },
    about:
      "A call waits for a person's decision (docs/api.md#approvals): `chat_id` is where to send it, `root_chat_id` the chat the person talks in.",
  },
  "batch.budget_exhausted": {
    data: {
      batch_id: z.string(),
      field: z.enum(["llm_tokens", "llm_calls", "tool_calls", "subagents", "cost_usd"]),
      used: z
        .number()
        .describe("What was spent of `field` when the budget was reached, not the batch's total: see `in_flight`."),
      limit: z.number(),
      in_flight: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe(
          "Model requests let go before the budget was reached and not answered yet: their tokens and cost come on top of `used`, and are in the batch's `usage` on `batch.finished` (events kept from before it was added lack it).",
        ),
      metadata,
    },
    about: "A top-level batch reached its budget (docs/api.md#budgets): its calls not yet started end; sent once.",
  },
  "job.approval_decided": {
    data: {
      job_id: z.string(),
      batch_id: z.string(),
      tool_name: z.string(),
      tool_call_id: z.string().optional(),
      decision: z.enum(["approve", "deny", "expired"]),
      by: z.string().nullable(),
      reason: z.string().nullable(),
      metadata,
    },
  },
  "tenant.spend_alert": {
    data: {
      field: z.enum(["cost_usd", "llm_tokens", "llm_calls", "tool_calls"]),
      used: z.number().describe("What the tenant spent of `field` this period when the threshold was crossed."),
      limit: z.number(),
      period: z.enum(["day", "month"]),
      threshold: z
        .number()
        .describe("The fraction of the limit crossed (`limits.spend.alert_at`); 1 when the limit is reached."),
    },
  },
};

const eventSchema = (type: AnyEventType) => {
  const { data, about } = EVENT_DATA[type];
  return about === undefined ? event(type, data) : event(type, data).describe(about);
};

/**
 * One event, as webhooks deliver it and live streams send it (docs/api.md, "Events and webhooks"): one member
 * per type, in the list's order.
 */
export const eventEnvelope = z.discriminatedUnion(
  "type",
  eventTypes.map(eventSchema) as [ReturnType<typeof eventSchema>, ...ReturnType<typeof eventSchema>[]],
);

/** A message of the tenant-wide stream: the event plus the cursor to resume after. */
export const tenantStreamEvent = z.intersection(eventEnvelope, z.object({ cursor: z.number().int() }));

/** Sent first on a resumed stream when some missed messages are gone: reload state, then carry on. */
export const cursorExpired = z.object({ type: z.literal("cursor.expired"), oldest: z.number().int() });
