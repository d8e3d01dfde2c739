/**
 * `POST /v1/webhook/test` (docs/api.md#deliveries-redelivery-and-a-test-event): one signed `webhook.test` event sent
 * to `webhook.url` now, outside the outbox (nothing is stored or retried), so
 * whoever sets up a receiver sees at once what it answers and what that answer
 * would do to real events.
 */
import { nanoid } from "nanoid";
import { afterAttempt } from "./delivery-rules";
import { sendWebhook, type AttemptResult, type WebhookTarget } from "./send";

export interface WebhookTestAnswer {
  /** The receiver's HTTP status; null when none came (no answer, a timeout, a URL egress refuses). */
  status: number | null;
  error?: string;
  duration_ms: number;
}

/** Signed and shaped like every event, with only the tenant in `data`: it belongs to no chat. */
export function testEventBody(id: string, tenant: string, now: number): string {
  return JSON.stringify({ id, type: "webhook.test", timestamp: new Date(now).toISOString(), data: { tenant } });
}

export function testAnswer(result: AttemptResult, durationMs: number, disabled: boolean): WebhookTestAnswer {
  const error = testError(result, disabled);
  return { status: result.status, ...(error === undefined ? {} : { error }), duration_ms: durationMs };
}

/** What is wrong, said as what the same answer would do to a real event; undefined when nothing is. */
function testError({ status, error }: AttemptResult, disabled: boolean): string | undefined {
  if (status === null) return error;
  const outcome = afterAttempt(status, 1, 0);
  switch (outcome.kind) {
    case "delivered":
      return disabled
        ? `The receiver answered ${status}, but the webhook is disabled after a 410 Gone: no event is sent until the next PUT or PATCH of /v1/config.`
        : undefined;
    case "retry":
      return `The receiver answered ${status}: events answered so are retried for about 27 h, then fail. Answer 2xx within 10 s.`;
    case "disable":
      return "The receiver answered 410 Gone: an event answered so disables the webhook until the next PUT or PATCH of /v1/config.";
    case "failed":
      return `The receiver answered ${status}: events answered so fail at once. Answer 2xx within 10 s.`;
  }
}

export async function sendTestEvent(
  target: WebhookTarget,
  tenant: string,
  allowPrivateEgress: boolean,
): Promise<WebhookTestAnswer> {
  const id = `evt_${nanoid(21)}`;
  const started = Date.now();
  const body = testEventBody(id, tenant, started);
  const result = await sendWebhook(
    target.url,
    target.secret,
    { id, body },
    new AbortController().signal,
    allowPrivateEgress,
  );
  return testAnswer(result, Date.now() - started, target.disabled);
}
