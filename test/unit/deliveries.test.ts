/**
 * Webhook deliveries (docs/api.md#deliveries-redelivery-and-a-test-event): the listing's entries, when an event may
 * be sent again, what a test send answers, and the send-time egress check.
 * Entries and answers must parse under the /openapi.json schemas exactly.
 */
import { describe, expect, it } from "vitest";
import * as schemas from "../../src/core/api/deliveries";
import { deliveryEntry, redeliveryRefusal, type DeliveryRow } from "../../src/core/webhooks/deliveries";
import { sendWebhook } from "../../src/core/webhooks/send";
import { testAnswer, testEventBody } from "../../src/core/webhooks/test-event";

const T = Date.parse("2026-11-30T10:00:00.123Z");
const row = (more: Partial<DeliveryRow> = {}): DeliveryRow => ({
  id: "evt_AAAAAAAAAAAAAAAAAAAAA",
  type: "batch.finished",
  seq: 4,
  status: "failed",
  attempts: 1,
  last_status: 400,
  last_error: "The receiver answered 400; not retried.",
  next_at: null,
  delivered_at: null,
  failed_at: T,
  ...more,
});
const COMMON = ["id", "type", "seq", "status", "attempts", "last_status", "last_error"];

describe("a delivery entry", () => {
  it("a failed event: the common fields in the documented order, then failed_at in RFC 3339 with milliseconds", () => {
    const entry = deliveryEntry(row() as DeliveryRow & { status: "failed" });
    expect(Object.keys(entry)).toEqual([...COMMON, "failed_at"]);
    expect(entry).toMatchObject({
      status: "failed",
      attempts: 1,
      last_status: 400,
      failed_at: "2026-11-30T10:00:00.123Z",
    });
    expect(schemas.delivery.strict().parse(entry)).toEqual(entry);
  });

  it("a pending event carries next_attempt_at; a delivered one delivered_at; neither carries the others' times", () => {
    const pending = deliveryEntry({
      ...row({ status: "pending", next_at: T + 5000, failed_at: T }),
      status: "pending",
    });
    expect(Object.keys(pending)).toEqual([...COMMON, "next_attempt_at"]);
    expect(pending.next_attempt_at).toBe("2026-11-30T10:00:05.123Z");
    const delivered = deliveryEntry({
      ...row({ status: "delivered", last_status: 204, last_error: null, delivered_at: T + 7 }),
      status: "delivered",
    });
    expect(Object.keys(delivered)).toEqual([...COMMON, "delivered_at"]);
    expect(delivered.delivered_at).toBe("2026-11-30T10:00:00.130Z");
    for (const entry of [pending, delivered]) expect(schemas.delivery.strict().parse(entry)).toEqual(entry);
  });

  it("an event delivered before delivery times were kept has no delivered_at", () => {
    expect(
      Object.keys(deliveryEntry({ ...row({ status: "delivered", delivered_at: null }), status: "delivered" })),
    ).toEqual(COMMON);
  });

  it("the schema refuses a time without milliseconds", () => {
    expect(
      schemas.delivery.safeParse({
        ...deliveryEntry(row() as DeliveryRow & { status: "failed" }),
        failed_at: "2026-11-30T10:00:00Z",
      }).success,
    ).toBe(false);
  });
});

describe("whether an event may be sent again", () => {
  const refusal = (r: DeliveryRow | undefined, webhook = true) => {
    const e = redeliveryRefusal(r, "c1", "evt_x", webhook);
    return e && { status: e.status, code: e.code, message: e.message };
  };

  it("a failed or delivered event may, while a webhook is configured", () => {
    expect(refusal(row())).toBeUndefined();
    expect(refusal(row({ status: "delivered" }))).toBeUndefined();
    expect(refusal(row(), false)).toEqual({
      status: 400,
      code: "no_webhook",
      message: "No webhook is configured: set webhook.url with PATCH /v1/config, then redeliver the event.",
    });
  });

  it("an unknown or purged event is 404 event_not_found, and so is one that never had a webhook target", () => {
    expect(refusal(undefined)).toEqual({
      status: 404,
      code: "event_not_found",
      message:
        "Event 'evt_x' not found in chat 'c1': it never happened there, or it was purged (events are kept 24 h, the last 1000 per chat).",
    });
    expect(refusal(row({ status: "none" }))).toMatchObject({
      status: 404,
      code: "event_not_found",
      message: expect.stringContaining("had no webhook to go to"),
    });
  });

  it("an event still on its schedule can be sent now: no refusal but a missing webhook", () => {
    expect(refusal(row({ status: "pending", next_at: T }))).toBeUndefined();
    expect(refusal(row({ status: "pending", next_at: T }), false)).toMatchObject({ status: 400, code: "no_webhook" });
  });
});

describe("the test event", () => {
  it("is an event envelope with only the tenant in data", () => {
    const body = JSON.parse(testEventBody("evt_t", "acme", T));
    expect(body).toEqual({
      id: "evt_t",
      type: "webhook.test",
      timestamp: "2026-11-30T10:00:00.123Z",
      data: { tenant: "acme" },
    });
    expect(schemas.webhookTestEvent.strict().parse(body)).toEqual(body);
  });

  it("answers the receiver's status; error only when something is wrong, said as what it would do to events", () => {
    const answers = [
      testAnswer({ status: 204, error: "" }, 12, false),
      testAnswer({ status: 204, error: "" }, 12, true),
      testAnswer({ status: 503, error: "HTTP 503" }, 3, false),
      testAnswer({ status: 400, error: "HTTP 400" }, 3, false),
      testAnswer({ status: 410, error: "HTTP 410" }, 3, false),
      testAnswer({ status: null, error: "No answer within 10 s." }, 10_000, false),
    ];
    expect(answers).toEqual([
      { status: 204, duration_ms: 12 },
      {
        status: 204,
        error:
          "The receiver answered 204, but the webhook is disabled after a 410 Gone: no event is sent until the next PUT or PATCH of /v1/config.",
        duration_ms: 12,
      },
      {
        status: 503,
        error:
          "The receiver answered 503: events answered so are retried for about 27 h, then fail. Answer 2xx within 10 s.",
        duration_ms: 3,
      },
      {
        status: 400,
        error: "The receiver answered 400: events answered so fail at once. Answer 2xx within 10 s.",
        duration_ms: 3,
      },
      {
        status: 410,
        error:
          "The receiver answered 410 Gone: an event answered so disables the webhook until the next PUT or PATCH of /v1/config.",
        duration_ms: 3,
      },
      { status: null, error: "No answer within 10 s.", duration_ms: 10_000 },
    ]);
    expect(Object.keys(answers[1]!)).toEqual(["status", "error", "duration_ms"]);
    for (const a of answers) expect(schemas.webhookTestAnswer.strict().parse(a)).toEqual(a);
  });
});

describe("a webhook send", () => {
  it("to a URL the egress rules refuse makes no request and says why", async () => {
    const result = await sendWebhook(
      "http://127.0.0.1:1/hook",
      "whsec_c2VjcmV0",
      { id: "evt_1", body: "{}" },
      new AbortController().signal,
      false,
    );
    expect(result).toEqual({
      status: null,
      error: "The webhook URL must use https:; outbound requests there are not allowed.",
      refused: true,
    });
    const https = await sendWebhook(
      "https://127.0.0.1:1/hook",
      "whsec_c2VjcmV0",
      { id: "evt_1", body: "{}" },
      new AbortController().signal,
      false,
    );
    expect(https.error).toBe(
      "The webhook URL points at a non-public address (loopback); outbound requests there are not allowed.",
    );
  });
});
