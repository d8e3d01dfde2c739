/**
 * `webhook.events` (docs/api.md#events-and-webhooks): the event types a webhook receives, as globs.
 * Filtered-out events are still kept and streamed, never sent; a batch's callback_url gets the same
 * filter; the test event is always sent.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { api, call, configure, eventually, json, parallel } from "../helpers";
import { inbox, received, SECRET, webhookConfig } from "../webhook-inbox";

afterEach(() => reset());

const types = async (name: string) => (await received(name)).map((r) => (JSON.parse(r.body) as { type: string }).type);
const webhook = (url: string, events?: string[]) =>
  webhookConfig(url, { webhook: { url, secret: SECRET, ...(events ? { events } : {}) } });

describe("webhook.events", () => {
  it("sends only the event types it names; the others are kept, just not sent", async () => {
    const url = await inbox("we-1");
    await configure(webhook(url, ["batch.finished"]));
    const res = await parallel("we-1", { tool_calls: [call("echo", { n: 1 }), call("echo", { n: 2 })], timeout: 10 });
    expect(res.body.status).toBe("success");
    await eventually(async () => ((await types("we-1")).length ? true : undefined));
    await new Promise((r) => setTimeout(r, 300)); // anything else would have come by now
    expect(await types("we-1")).toEqual(["batch.finished"]);
    // Nothing else waits to be sent, or failed.
    expect((await json(await api("/v1/chats/we-1/events?status=pending"))).events).toEqual([]);
    expect((await json(await api("/v1/chats/we-1/events?status=delivered"))).events.map((e: any) => e.type)).toEqual([
      "batch.finished",
    ]);
  });

  it("takes globs, and applies to a batch's callback_url too", async () => {
    const url = await inbox("we-2");
    const callback = await inbox("we-2-cb");
    await configure(webhook(url, ["job.*"]));
    await parallel(
      "we-2",
      { tool_calls: [call("echo", { n: 1 })], timeout: 10 },
      { query: `?callback_url=${encodeURIComponent(callback)}` },
    );
    await eventually(async () => ((await types("we-2-cb")).length >= 2 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect((await types("we-2-cb")).sort()).toEqual(["job.finished", "job.started"]);
    expect(await types("we-2")).toEqual([]); // chat.created and chat.idle are not job.*
  });

  it("sends every type without a filter, and the test event whatever the filter says", async () => {
    const url = await inbox("we-3");
    await configure(webhook(url, ["batch.finished"]));
    const tested = await json(await api("/v1/webhook/test", { body: {} }));
    expect(tested.status).toBe(200);
    expect(await types("we-3")).toEqual(["webhook.test"]);
    const all = await inbox("we-4");
    await configure(webhook(all));
    await parallel("we-4", { tool_calls: [call("echo")], timeout: 10 });
    await eventually(async () => ((await types("we-4")).includes("chat.idle") ? true : undefined));
    expect((await types("we-4")).sort()).toEqual([
      "batch.finished",
      "chat.created",
      "chat.idle",
      "job.finished",
      "job.started",
    ]);
  });

  it("refuses an empty list or more than 64 globs", async () => {
    const url = await inbox("we-5");
    const empty = await api("/v1/config", { method: "PUT", body: webhook(url, []) });
    expect(empty.status, await empty.clone().text()).toBe(400);
    expect(
      (
        await api("/v1/config", {
          method: "PUT",
          body: webhook(
            url,
            Array.from({ length: 65 }, (_, i) => `t${i}`),
          ),
        })
      ).status,
    ).toBe(400);
  });
});
