/**
 * Webhook deliveries as the API shows them (docs/api.md#deliveries-redelivery-and-a-test-event): a kept event's
 * delivery state in the listing's shape, and whether it may be sent again.
 * Pure, so the rules are tested apart from the chat's storage.
 */
import { quoteName } from "../calls/names";
import { ApiError } from "../http/errors";

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** An events row as the outbox keeps it (times in ms; `none`: the event had no webhook target). */
export type DeliveryRow = {
  id: string;
  type: string;
  seq: number;
  status: DeliveryStatus | "none";
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_at: number | null;
  delivered_at: number | null;
  failed_at: number | null;
};

/**
 * One entry of `GET /v1/chats/{chat}/events?status=…`, keys in the order
 * docs/api.md#deliveries-redelivery-and-a-test-event lists them.
 */
export interface DeliveryEntry {
  id: string;
  type: string;
  seq: number;
  status: DeliveryStatus;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at?: string;
  delivered_at?: string;
  failed_at?: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Each status carries its own time: when the next attempt is due, or when the event settled. */
export function deliveryEntry(row: DeliveryRow & { status: DeliveryStatus }): DeliveryEntry {
  const entry: DeliveryEntry = {
    id: row.id,
    type: row.type,
    seq: row.seq,
    status: row.status,
    attempts: row.attempts,
    last_status: row.last_status,
    last_error: row.last_error,
  };
  if (row.status === "pending" && row.next_at !== null) entry.next_attempt_at = iso(row.next_at);
  // Events delivered before the chat kept delivery times have none to show.
  if (row.status === "delivered" && row.delivered_at !== null) entry.delivered_at = iso(row.delivered_at);
  if (row.status === "failed" && row.failed_at !== null) entry.failed_at = iso(row.failed_at);
  return entry;
}

/** 400 `no_webhook`, saying what to do once the webhook is set. */
export const noWebhook = (then: string) =>
  new ApiError(400, "no_webhook", `No webhook is configured: set webhook.url with PATCH /v1/config, ${then}.`);

/**
 * Why `row` cannot be sent again now, or undefined when it can. Any delivered, failed or pending
 * event can: a pending one is sent now instead of at its next retry.
 */
export function redeliveryRefusal(
  row: DeliveryRow | undefined,
  chatId: string,
  eventId: string,
  webhookConfigured: boolean,
): ApiError | undefined {
  if (!row) {
    return new ApiError(
      404,
      "event_not_found",
      `Event '${quoteName(eventId)}' not found in chat '${quoteName(chatId)}': it never happened there, or it was purged (events are kept 24 h, the last 1000 per chat).`,
    );
  }
  if (row.status === "none") {
    return new ApiError(
      404,
      "event_not_found",
      `Event '${quoteName(eventId)}' of chat '${quoteName(chatId)}' had no webhook to go to when it happened, so there is no delivery to repeat.`,
    );
  }
  if (!webhookConfigured) {
    return noWebhook("then redeliver the event");
  }
  return undefined;
}
