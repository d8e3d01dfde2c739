/**
 * Wire schemas of webhook deliveries (docs/api.md#deliveries-redelivery-and-a-test-event), for `/openapi.json`: a
 * kept event's delivery, the listing, and what `POST /v1/webhook/test` sends
 * and answers.
 */
import { z } from "zod";

const rfc3339 = z.iso.datetime({ precision: 3 });

/**
 * One kept event's webhook delivery (docs/api.md#deliveries-redelivery-and-a-test-event); each status carries
 * its own time.
 */
export const delivery = z.object({
  id: z.string().describe("The event id: the webhook-id of every attempt, a redelivery's too."),
  type: z.string(),
  seq: z.number().int(),
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.number().int().describe("Attempts in the current schedule (a redelivery starts a fresh one)."),
  last_status: z
    .number()
    .int()
    .nullable()
    .describe("The receiver's HTTP status at the last attempt; null: no answer, or no attempt yet."),
  last_error: z.string().nullable(),
  next_attempt_at: rfc3339.optional().describe("Pending: when the next attempt is due."),
  delivered_at: rfc3339.optional().describe("Delivered: when the receiver answered 2xx."),
  failed_at: rfc3339.optional().describe("Failed: when delivery gave up."),
});

export const deliveryList = z.object({ events: z.array(delivery) });

export const webhookTestAnswer = z.object({
  status: z
    .number()
    .int()
    .nullable()
    .describe(
      "The receiver's HTTP status; null when none came (no answer in 10 s, a network error, a URL egress refuses).",
    ),
  error: z
    .string()
    .optional()
    .describe("What went wrong, as what the same answer would do to real events; absent on a plain 2xx."),
  duration_ms: z.number().int(),
});

/** What `POST /v1/webhook/test` sends: signed like every event, about the tenant only. */
export const webhookTestEvent = z.object({
  id: z.string(),
  type: z.literal("webhook.test"),
  timestamp: z.string(),
  data: z.object({ tenant: z.string() }),
});
