/**
 * Webhook signatures (docs/api.md#events-and-webhooks, Standard Webhooks), checked against the
 * reference implementation (`standardwebhooks`) in both directions.
 */
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { signatureHeaders } from "../../src/core/tools/signing";
import { verifyWebhook } from "../../packages/client/src/webhook";
import { afterAttempt, RETRY_DELAYS_MS } from "../../src/core/webhooks/delivery-rules";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const body = '{"id":"evt_1","type":"chat.idle"}';
const now = Date.parse("2026-11-30T10:00:00Z");

describe("webhook signatures", () => {
  it("what fanout signs verifies with the reference implementation", async () => {
    const reference = new Webhook(secret);
    const fresh = await signatureHeaders(secret, "evt_1", body); // the reference checks against the real clock
    expect(reference.verify(body, fresh)).toEqual(JSON.parse(body));
    const headers = await signatureHeaders(secret, "evt_1", body, now);
    expect(reference.sign("evt_1", new Date(now), body)).toBe(headers["webhook-signature"]);
  });

  it("the bot-side helper accepts the reference implementation's signatures", async () => {
    const signature = new Webhook(secret).sign("msg_1", new Date(now), body);
    const headers = { "webhook-id": "msg_1", "webhook-timestamp": String(now / 1000), "webhook-signature": signature };
    expect(await verifyWebhook(secret, headers, body, { nowMs: now })).toBe(true);
    expect(await verifyWebhook(secret, new Headers(headers), body, { nowMs: now })).toBe(true);
  });

  it("refuses a changed body, another secret, a stale timestamp, and missing headers", async () => {
    const headers = await signatureHeaders(secret, "evt_1", body, now);
    expect(await verifyWebhook(secret, headers, `${body} `, { nowMs: now })).toBe(false);
    expect(await verifyWebhook(`whsec_${btoa("another secret value!!")}`, headers, body, { nowMs: now })).toBe(false);
    expect(await verifyWebhook(secret, headers, body, { nowMs: now + 301_000 })).toBe(false);
    expect(await verifyWebhook(secret, headers, body, { nowMs: now + 301_000, toleranceSeconds: 0 })).toBe(true);
    expect(await verifyWebhook(secret, { "webhook-id": "evt_1" }, body, { nowMs: now })).toBe(false);
  });

  it("agrees with the signer on a secret that is not base64 (its raw bytes are the key)", async () => {
    const headers = await signatureHeaders("my-plain-secret!", "evt_2", body, now);
    expect(await verifyWebhook("my-plain-secret!", headers, body, { nowMs: now })).toBe(true);
  });

  it("accepts any valid v1 signature of several (secret rotation)", async () => {
    const headers = await signatureHeaders(secret, "evt_1", body, now);
    const both = { ...headers, "webhook-signature": `v1,AAAA ${headers["webhook-signature"]}` };
    expect(await verifyWebhook(secret, both, body, { nowMs: now })).toBe(true);
  });
});

describe("after a webhook attempt", () => {
  it("2xx is delivered; 410 disables; other 4xx fail at once", () => {
    expect(afterAttempt(204, 1, now)).toEqual({ kind: "delivered" });
    expect(afterAttempt(410, 1, now).kind).toBe("disable");
    expect(afterAttempt(400, 1, now)).toEqual({ kind: "failed", reason: "The receiver answered 400; not retried." });
    expect(afterAttempt(301, 1, now).kind).toBe("failed");
  });

  it("408, 429, 5xx and no answer retry at 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then fail", () => {
    for (const status of [408, 429, 500, 503, null])
      expect(afterAttempt(status, 1, now)).toEqual({ kind: "retry", at: now + 5000 });
    const schedule = RETRY_DELAYS_MS.map((_, i) => (afterAttempt(500, i + 1, now) as { at: number }).at - now);
    expect(schedule).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(schedule.reduce((a, b) => a + b) / 3_600_000).toBeCloseTo(27.6, 1);
    expect(afterAttempt(500, 8, now)).toEqual({ kind: "failed", reason: "Still failing after 8 attempts; gave up." });
  });
});

describe("an event too big for one row", () => {
  it("keeps everything but the result texts, and says so", async () => {
    const { withoutResults } = await import("../../src/core/events/envelope");
    const data = {
      job_id: "j",
      result: "x".repeat(5000),
      results: {
        status: "success",
        jobs: [
          { job_id: "a", state: "success", result: "y".repeat(10) },
          { job_id: "b", state: "error", error: "no" },
        ],
      },
    };
    const slim = withoutResults(data);
    expect(slim).toMatchObject({ job_id: "j", truncated: true, result_truncated: true });
    expect((slim.result as string).length).toBe(1000);
    expect(slim.results).toEqual({
      status: "success",
      jobs: [
        { job_id: "a", state: "success", result_truncated: true },
        { job_id: "b", state: "error", error: "no" },
      ],
    });
  });

  it("cuts error texts to their first 1,000 characters, in the event and in each job of a batch", async () => {
    const { withoutResults } = await import("../../src/core/events/envelope");
    const long = "e".repeat(300_000);
    const slim = withoutResults({
      job_id: "j",
      error: long,
      results: {
        status: "error",
        jobs: Array.from({ length: 32 }, (_, i) => ({ job_id: `j${i}`, state: "error", error: long })),
      },
    });
    expect(slim.error).toBe("e".repeat(1000));
    expect((slim.results as { jobs: { error: string }[] }).jobs.every((j) => j.error === "e".repeat(1000))).toBe(true);
    expect(JSON.stringify(slim).length).toBeLessThan(64 * 1024);
  });

  const EVENT_LIMIT = 256 * 1024;

  it("cuts a /tool-calls batch's refused and `parallel` calls the same way, so a turn's event stays one row", async () => {
    const { withoutResults } = await import("../../src/core/events/envelope");
    const long = "x".repeat(16_000);
    const calls = Array.from({ length: 32 }, (_, i) =>
      i % 2
        ? {
            tool_call_id: `call_${i}`,
            name: "nope",
            job_id: null,
            state: "error",
            content: `Error: ${long}`,
            error: { code: "unknown_tool", message: long },
          }
        : { tool_call_id: `call_${i}`, name: "parallel", job_id: null, state: "success", content: long },
    );
    const slim = withoutResults({ batch_id: "b", results: { status: "error", jobs: [] }, tool_calls: calls });
    const cut = slim.tool_calls as {
      content: string;
      content_truncated?: true;
      error?: { code: string; message: string };
    }[];
    expect(cut.every((c) => c.content.length === 1000 && c.content_truncated === true)).toBe(true);
    expect(cut[1]!.error).toEqual({ code: "unknown_tool", message: "x".repeat(1000) });
    expect(cut[0]).toMatchObject({ tool_call_id: "call_0", name: "parallel", state: "success" });
    expect(JSON.stringify(slim).length).toBeLessThan(EVENT_LIMIT);
  });
});
