/**
 * Webhook deliveries (docs/api.md#deliveries-redelivery-and-a-test-event) against the real local receiver
 * (test/setup/fake-receiver.ts): the listing per status, and redelivery (same
 * id and body, signed as the reference implementation `standardwebhooks`
 * checks, a fresh schedule kept in the chat's storage, its own target) with
 * its refusals. The test event: webhook-test.test.ts.
 */
import { evictDurableObject, reset, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { swapEnv } from "../faults";
import { api, call, chatObject, configure, eventually, json, parallel, toolConfig } from "../helpers";
import { TEST_KEYS } from "../setup/bindings";
import { inbox, received, RFC3339_MS, SECRET, webhookConfig } from "../webhook-inbox";

afterEach(async () => {
  vi.useRealTimers();
  await reset();
});

const COMMON = ["id", "type", "seq", "status", "attempts", "last_status", "last_error"];

const receivedAtLeast = (name: string, n: number) =>
  eventually(async () => {
    const list = await received(name);
    return list.length >= n ? list : undefined;
  });

const listing = async (chat: string, status: string, key?: string) => {
  const res = await api(`/v1/chats/${chat}/events?status=${status}`, { key });
  return { status: res.status, body: await json(res) };
};
const redeliver = async (chat: string, id: string, key?: string) => {
  const res = await api(`/v1/chats/${chat}/events/${id}/redeliver`, { method: "POST", key });
  return { status: res.status, body: await json(res) };
};
/** Waits until the chat lists `n` events in `status`. */
const listed = (chat: string, status: string, n: number) =>
  eventually(async () => {
    const { body } = await listing(chat, status);
    return body.events.length === n ? body.events : undefined;
  });

/** A chat whose first event to arrive at the receiver fails with a 400; the rest are delivered. */
async function chatWithAFailedEvent(chat: string, box: string, more: Record<string, unknown> = {}) {
  await configure(webhookConfig(await inbox(box, [400]), more));
  await parallel(chat, { tool_calls: [call("echo", { x: 1 })] });
  const [failed] = await listed(chat, "failed", 1);
  await listed(chat, "delivered", 4);
  return failed as { id: string; seq: number; type: string };
}

/** Moves the chat's clock forward and runs its alarm (deliveries run beside it). */
async function later(chat: string, ms: number) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + ms);
  await runDurableObjectAlarm(chatObject(chat));
}

const eventRow = (chat: string, id: string) =>
  runInDurableObject(
    chatObject(chat),
    (_i, s) =>
      s.storage.sql.exec("SELECT * FROM events WHERE id = ?", id).toArray()[0] as Record<string, any> | undefined,
  );

describe("the deliveries listing", () => {
  it("lists kept events with a webhook target per status, each with its own time", async () => {
    // The chat's own events go to webhook.url, where the first to arrive fails; the batch's go to a
    // callback_url that keeps answering 503, so they stay pending.
    const main = await inbox("dl1", [400]);
    const callback = await inbox("dl1-callback", Array(20).fill(503));
    await configure(webhookConfig(main));
    await parallel(
      "dl1",
      { tool_calls: [call("echo", { x: 1 })] },
      { query: `?callback_url=${encodeURIComponent(callback)}` },
    );
    await receivedAtLeast("dl1-callback", 3);
    const pending = await eventually(async () => {
      const { body } = await listing("dl1", "pending");
      return body.events.length === 3 && body.events.every((e: { attempts: number }) => e.attempts === 1)
        ? body.events
        : undefined;
    });
    const [failed] = await listed("dl1", "failed", 1);
    const [delivered] = await listed("dl1", "delivered", 1);

    expect(pending.map((e: { type: string }) => e.type)).toEqual(["job.started", "job.finished", "batch.finished"]);
    for (const e of pending) {
      expect(Object.keys(e)).toEqual([...COMMON, "next_attempt_at"]);
      expect(e).toMatchObject({ status: "pending", attempts: 1, last_status: 503, last_error: "HTTP 503" });
      expect(e.next_attempt_at).toMatch(RFC3339_MS);
      expect(Date.parse(e.next_attempt_at) - Date.now()).toBeLessThanOrEqual(5_000);
    }
    expect(Object.keys(failed)).toEqual([...COMMON, "failed_at"]);
    expect(failed).toMatchObject({
      status: "failed",
      attempts: 1,
      last_status: 400,
      last_error: "The receiver answered 400; not retried.",
    });
    expect(failed.failed_at).toMatch(RFC3339_MS);
    expect(Object.keys(delivered)).toEqual([...COMMON, "delivered_at"]);
    expect(delivered).toMatchObject({ status: "delivered", attempts: 1, last_status: 200, last_error: null });
    expect(delivered.delivered_at).toMatch(RFC3339_MS);
    // delivered_at is when the receiver's 2xx came, not when the event happened.
    const answered = (await received("dl1")).find((d) => d.headers["webhook-id"] === delivered.id)!;
    expect(Math.abs(Date.parse(delivered.delivered_at) - answered.at)).toBeLessThan(2_000);
    expect([failed.type, delivered.type].sort()).toEqual(["chat.created", "chat.idle"]);
    expect([...pending, failed, delivered].map((e: { seq: number }) => e.seq).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it("leaves out events that had no webhook target, and refuses an unknown status", async () => {
    await configure(toolConfig());
    await parallel("dl2", { tool_calls: [call("echo", { x: 1 })] });
    for (const status of ["pending", "delivered", "failed"])
      expect(await listing("dl2", status)).toEqual({ status: 200, body: { events: [] } });
    const bad = await listing("dl2", "lost");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toEqual({
      code: "invalid_status",
      message:
        "Use `?status=pending`, `delivered` or `failed` to list webhook deliveries, or open a WebSocket for the live stream.",
    });
    expect((await api("/v1/chats/dl2/events")).status).toBe(400);
    expect((await listing("nobody", "delivered")).body.error.code).toBe("chat_not_found");
  });
});

describe("redelivery", () => {
  it("sends a failed event again with the same webhook-id, body and a valid signature; it becomes delivered", async () => {
    const failed = await chatWithAFailedEvent("rd1", "rd1");
    const first = (await received("rd1")).find((d) => d.headers["webhook-id"] === failed.id)!;
    expect(first.status).toBe(400);

    const asked = Date.now();
    const res = await redeliver("rd1", failed.id);
    expect(res.status).toBe(202);
    expect(Object.keys(res.body)).toEqual([...COMMON, "next_attempt_at"]);
    expect(res.body).toMatchObject({
      id: failed.id,
      type: failed.type,
      seq: failed.seq,
      status: "pending",
      attempts: 0,
      last_status: null,
      last_error: null,
    });

    const again = await eventually(async () =>
      (await received("rd1")).find((d) => d.headers["webhook-id"] === failed.id && d.status === 200),
    );
    expect(again.body).toBe(first.body);
    expect(new Webhook(SECRET).verify(again.body, again.headers)).toEqual(JSON.parse(first.body));
    const delivered = await eventually(async () =>
      (await listing("rd1", "delivered")).body.events.find((e: { id: string }) => e.id === failed.id),
    );
    expect(delivered).toMatchObject({
      seq: failed.seq,
      status: "delivered",
      attempts: 1,
      last_status: 200,
      last_error: null,
    });
    expect(Date.parse(delivered.delivered_at)).toBeGreaterThanOrEqual(asked - 1_000);
    expect((await listing("rd1", "failed")).body.events).toEqual([]);
    // A delivered event may be sent again too.
    expect((await redeliver("rd1", failed.id)).status).toBe(202);
    await eventually(
      async () => (await received("rd1")).filter((d) => d.headers["webhook-id"] === failed.id).length === 3,
    );
  });

  it("starts a fresh schedule kept in storage: failing again, it is retried at 5 s by the alarm, even after an eviction; 409 meanwhile", async () => {
    const failed = await chatWithAFailedEvent("rd2", "rd2");
    await inbox("rd2", [503]);
    expect((await redeliver("rd2", failed.id)).status).toBe(202);
    await eventually(async () =>
      (await received("rd2")).some((d) => d.headers["webhook-id"] === failed.id && d.status === 503),
    );
    const row = await eventually(async () => {
      const r = await eventRow("rd2", failed.id);
      return r?.attempts === 1 ? r : undefined;
    });
    // The first delay of the schedule again, not the second one's 5 min.
    expect(row).toMatchObject({ status: "pending", seq: failed.seq, last_status: 503 });
    expect(row.next_at - Date.now()).toBeLessThanOrEqual(5_000);
    expect(row.next_at).toBeGreaterThan(row.created_at);
    const { timer, alarm } = await runInDurableObject(chatObject("rd2"), async (_i, s) => ({
      timer: s.storage.sql.exec("SELECT at FROM timers WHERE kind = 'deliver'").toArray()[0] as
        | { at: number }
        | undefined,
      alarm: await s.storage.getAlarm(),
    }));
    expect(timer?.at).toBeLessThanOrEqual(row.next_at);
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeLessThanOrEqual(row.next_at);

    // Pending, its next try up to 5 s away: redelivered, it goes now, on a fresh schedule.
    const now = await redeliver("rd2", failed.id);
    expect(now.status).toBe(202);
    expect(now.body).toMatchObject({ id: failed.id, status: "pending", attempts: 0 });
    expect(Date.parse(now.body.next_attempt_at) - Date.now()).toBeLessThanOrEqual(1_000);

    await evictDurableObject(chatObject("rd2"));
    await later("rd2", 6_000);
    await eventually(async () =>
      (await received("rd2")).some((d) => d.headers["webhook-id"] === failed.id && d.status === 200),
    );
    await eventually(async () => (await eventRow("rd2", failed.id))?.status === "delivered");
  });

  it("goes to the event's own target: its batch's callback_url, even after the batch's jobs were purged", async () => {
    const main = await inbox("rd3");
    const callback = await inbox("rd3-callback", [400]);
    await configure(webhookConfig(main, { limits: { retention_seconds: 60 } }));
    await parallel(
      "rd3",
      { tool_calls: [call("echo", { x: 1 })] },
      { query: `?callback_url=${encodeURIComponent(callback)}` },
    );
    const [failed] = await listed("rd3", "failed", 1);
    // A running job keeps the chat while the finished batches' jobs pass their retention; the
    // second one's purge, after the first one's jobs are gone, is where a batch without jobs goes.
    await parallel("rd3", { tool_calls: [call("wait", { seconds: 200 })], wait: false });
    await later("rd3", 30_000);
    await parallel("rd3", { tool_calls: [call("echo", { x: 2 })] });
    await later("rd3", 31_000);
    await later("rd3", 30_000);
    const jobs = await runInDurableObject(chatObject("rd3"), (_i, s) =>
      s.storage.sql.exec("SELECT tool_name FROM jobs").toArray(),
    );
    expect(jobs).toEqual([{ tool_name: "wait" }]);

    const before = (await received("rd3")).length;
    expect((await redeliver("rd3", failed.id)).status).toBe(202);
    await runDurableObjectAlarm(chatObject("rd3")); // the clock is fake: run the alarm the redelivery set
    await eventually(async () =>
      (await received("rd3-callback")).some((d) => d.headers["webhook-id"] === failed.id && d.status === 200),
    );
    expect((await received("rd3")).filter((d) => d.headers["webhook-id"] === failed.id)).toEqual([]);
    expect((await received("rd3")).length).toBeGreaterThanOrEqual(before);
  });

  it("is 404 for an unknown event, a purged one and one that had no target; 400 for a malformed id", async () => {
    await configure(toolConfig());
    await parallel("rd4", { tool_calls: [call("echo", { x: 1 })] });
    const none = (
      await runInDurableObject(chatObject("rd4"), (_i, s) =>
        s.storage.sql.exec("SELECT id FROM events ORDER BY seq").toArray(),
      )
    )[0]!.id as string;
    const failed = await chatWithAFailedEvent("rd4b", "rd4");

    const unknown = await redeliver("rd4b", "evt_aaaaaaaaaaaaaaaaaaaaa");
    expect(unknown).toEqual({
      status: 404,
      body: {
        status: "error",
        error: {
          code: "event_not_found",
          message:
            "Event 'evt_aaaaaaaaaaaaaaaaaaaaa' not found in chat 'rd4b': it never happened there, or it was purged (events are kept 24 h, the last 1000 per chat).",
        },
      },
    });
    const noTarget = await redeliver("rd4", none);
    expect(noTarget.status).toBe(404);
    expect(noTarget.body.error.message).toBe(
      `Event '${none}' of chat 'rd4' had no webhook to go to when it happened, so there is no delivery to repeat.`,
    );
    expect((await api("/v1/chats/rd4b/events/not-an-event/redeliver", { method: "POST" })).status).toBe(400);

    await later("rd4b", 24 * 3600_000 + 60_000); // past the events' 24 h
    await eventually(async () => (await eventRow("rd4b", failed.id)) === undefined);
    expect((await redeliver("rd4b", failed.id)).body.error.code).toBe("event_not_found");
  });

  it("on a chat that does not exist: 404 chat_not_found, and no storage is created", async () => {
    await configure(webhookConfig(await inbox("rd5")));
    const res = await redeliver("rd-nobody", "evt_aaaaaaaaaaaaaaaaaaaaa");
    expect(res).toEqual({
      status: 404,
      body: {
        status: "error",
        error: { code: "chat_not_found", message: expect.stringContaining("'rd-nobody' not found") },
      },
    });
    const tables = await runInDurableObject(chatObject("rd-nobody"), (_i, s) =>
      s.storage.sql.exec("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE '_cf%'").toArray(),
    );
    expect(tables).toEqual([]);
  });

  it("is 400 no_webhook once the webhook is removed; the event stays failed", async () => {
    const failed = await chatWithAFailedEvent("rd6", "rd6");
    await configure(toolConfig());
    const res = await redeliver("rd6", failed.id);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: "no_webhook",
      message: "No webhook is configured: set webhook.url with PATCH /v1/config, then redeliver the event.",
    });
    expect((await listing("rd6", "failed")).body.events.map((e: { id: string }) => e.id)).toEqual([failed.id]);
  });

  it("is another tenant's chat to nobody else: globex gets 404 for acme's chat and event; no key, no redelivery", async () => {
    const failed = await chatWithAFailedEvent("rd7", "rd7");
    await configure(webhookConfig(await inbox("rd7-globex")), TEST_KEYS.globex);
    expect((await redeliver("rd7", failed.id, TEST_KEYS.globex)).body.error.code).toBe("chat_not_found");
    expect((await listing("rd7", "failed", TEST_KEYS.globex)).body.error.code).toBe("chat_not_found");
    expect(await received("rd7-globex")).toEqual([]);
    expect((await listing("rd7", "failed")).body.events).toHaveLength(1);
    // Both routes want a key like every /v1 route; a stream ticket opens neither.
    expect((await api(`/v1/chats/rd7/events/${failed.id}/redeliver`, { method: "POST", key: null })).status).toBe(401);
    expect((await api("/v1/webhook/test", { method: "POST", key: null })).status).toBe(401);
    const { ticket } = await json(await api("/v1/ws-tickets", { method: "POST", body: {} }));
    expect((await api(`/v1/webhook/test?ticket=${ticket}`, { method: "POST", key: null })).status).toBe(401);
  });

  it("keeps to the egress rules at send time: a URL no longer allowed fails the event without a request", async () => {
    const failed = await chatWithAFailedEvent("rd8", "rd8");
    const sent = (await received("rd8")).length;
    await swapEnv(chatObject("rd8"), () => ({ ALLOW_PRIVATE_EGRESS: "false" }));
    expect((await redeliver("rd8", failed.id)).status).toBe(202);
    const [refused] = await eventually(async () => {
      const events = (await listing("rd8", "failed")).body.events;
      return events.length === 1 && events[0].attempts === 0 ? events : undefined;
    });
    expect(refused).toMatchObject({
      id: failed.id,
      last_status: null,
      last_error: "The webhook URL must use https:; outbound requests there are not allowed.",
    });
    expect((await received("rd8")).length).toBe(sent);
    await evictDurableObject(chatObject("rd8")); // the real env back
  });
});
