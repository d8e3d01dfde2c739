/**
 * `POST /v1/webhook/test` (docs/api.md#deliveries-redelivery-and-a-test-event) against the real local receiver: one
 * signed `webhook.test` event, checked with the reference implementation
 * (`standardwebhooks`), and the receiver's answer passed on as it came.
 */
import { createExecutionContext, env, reset } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { api, configure, json, toolConfig, toolServer } from "../helpers";
import { TEST_KEYS } from "../setup/bindings";
import { inbox, received, RFC3339_MS, SECRET, webhookConfig } from "../webhook-inbox";

afterEach(() => reset());

describe("POST /v1/webhook/test", () => {
  const test = async (key?: string) => {
    const res = await api("/v1/webhook/test", { method: "POST", key });
    return { status: res.status, body: await json(res) };
  };

  it("sends one signed webhook.test event now and answers the receiver's status", async () => {
    await configure(webhookConfig(await inbox("wt1")));
    const res = await test();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["status", "duration_ms"]);
    expect(res.body.status).toBe(200);
    expect(Number.isInteger(res.body.duration_ms) && res.body.duration_ms >= 0).toBe(true);
    const [delivery, ...more] = await received("wt1");
    expect(more).toEqual([]);
    const event = new Webhook(SECRET).verify(delivery!.body, delivery!.headers) as Record<string, any>;
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: "webhook.test",
      timestamp: expect.stringMatching(RFC3339_MS),
      data: { tenant: "acme" },
    });
    expect(delivery!.headers["webhook-id"]).toBe(event.id);
  });

  it("passes on a failing receiver's status with what it would do to events", async () => {
    await configure(webhookConfig(await inbox("wt2", [503])));
    expect((await test()).body).toEqual({
      status: 503,
      error:
        "The receiver answered 503: events answered so are retried for about 27 h, then fail. Answer 2xx within 10 s.",
      duration_ms: expect.any(Number),
    });
    expect(await received("wt2")).toHaveLength(1);
  });

  it("a receiver that is down gives status null and the error", async () => {
    await configure(webhookConfig(`${toolServer()}/drop`));
    const { status, body } = await test();
    expect(status).toBe(200);
    expect(body).toEqual({
      status: null,
      error: expect.stringMatching(/^Network error: /),
      duration_ms: expect.any(Number),
    });
  });

  it("says where it could not connect when nothing listens there, not just that a connection was lost", async () => {
    await configure(webhookConfig("http://127.0.0.1:9/fanout")); // the discard port: nothing listens on it here
    const { body } = await test();
    expect(body).toMatchObject({
      status: null,
      error:
        "Network error: no connection to http://127.0.0.1:9: refused (is anything listening there?) or dropped before an answer.",
    });
  });

  it("is 400 no_webhook when none is configured (per tenant)", async () => {
    await configure(webhookConfig(await inbox("wt4")));
    await configure(toolConfig(), TEST_KEYS.globex);
    expect(await test(TEST_KEYS.globex)).toEqual({
      status: 400,
      body: {
        status: "error",
        error: {
          code: "no_webhook",
          message: "No webhook is configured: set webhook.url with PATCH /v1/config, then send the test event.",
        },
      },
    });
    expect(await received("wt4")).toEqual([]);
  });

  it("keeps to the egress rules at send time", async () => {
    await configure(webhookConfig(await inbox("wt5")));
    const request = new Request("https://fanout.test/v1/webhook/test", {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_KEYS.acme}` },
    });
    const res = await worker.fetch(request, { ...env, ALLOW_PRIVATE_EGRESS: "false" }, createExecutionContext());
    expect(await res.json()).toEqual({
      status: null,
      error: "The webhook URL must use https:; outbound requests there are not allowed.",
      duration_ms: expect.any(Number),
    });
    expect(await received("wt5")).toEqual([]);
  });
});
