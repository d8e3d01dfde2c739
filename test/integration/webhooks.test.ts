/**
 * Webhooks (docs/api.md#events-and-webhooks) against a real local receiver: Standard Webhooks
 * signatures checked with the reference implementation, retries on the fixed
 * schedule (fake Date + runDurableObjectAlarm), failures, eviction, 410.
 */
import { evictDurableObject, reset, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  agentConfig,
  api,
  call,
  chatObject,
  configure,
  eventually,
  json,
  parallel,
  scriptLlm,
  toolConfig,
  toolServer,
} from "../helpers";
import { verifyWebhook } from "../../packages/client/src/webhook";
import { eventEnvelope } from "../../src/core/api/events";
import { DELIVERIES_AT_ONCE } from "../../durable-objects/chat/events/outbox";

afterEach(async () => {
  vi.useRealTimers();
  await reset();
});

const SECRET = "whsec_dGVzdC13ZWJob29rLXNlY3JldC0xMjM0NTY3OA==";
const echo = (x: unknown) => ({ tool_name: "echo", tool_args: { x } });

interface Delivery {
  headers: Record<string, string>;
  body: string;
  status: number;
  at: number;
}

async function inbox(name: string, statuses: number[] = []) {
  await fetch(`${toolServer()}/__hooks/script`, { method: "POST", body: JSON.stringify({ inbox: name, statuses }) });
  return `${toolServer()}/hooks/${name}`;
}
const received = async (name: string): Promise<Delivery[]> =>
  (await fetch(`${toolServer()}/__hooks/received?inbox=${name}`)).json();
const events = (list: Delivery[]) => list.map((d) => JSON.parse(d.body));
const webhookConfig = (url: string, more: Record<string, unknown> = {}) =>
  toolConfig({ webhook: { url, secret: SECRET, ...more } });

/** Waits until the receiver has seen a delivery of each type. */
const deliveriesOf = (name: string, types: string[]) =>
  eventually(async () => {
    const list = await received(name);
    const seen = new Set(events(list).map((e) => e.type));
    return types.every((t) => seen.has(t)) ? list : undefined;
  });

describe("the event schema in /openapi.json", () => {
  it("describes every event a batch with a tool and a subordinate produces", async () => {
    const url = await inbox("wire");
    await configure(agentConfig("m-wire", { webhook: { url, secret: SECRET, include_child_chats: true } }));
    await scriptLlm("m-wire", [{ content: "wired" }]);
    await parallel("wire1", {
      tool_calls: [echo(1), call("call_subordinate", { message: "Go.", reset: true })],
      timeout: 20,
    });
    const types = [
      "chat.created",
      "job.started",
      "job.finished",
      "batch.finished",
      "subagent.started",
      "subagent.finish",
      "chat.idle",
    ];
    const list = events(await deliveriesOf("wire", types));
    for (const e of list) {
      const parsed = eventEnvelope.safeParse(e);
      expect(parsed.success ? [] : parsed.error.issues, `${e.type} ${JSON.stringify(e)}`).toEqual([]);
    }
    expect(new Set(list.map((e) => e.data.chat_id)).size).toBe(2); // the child chat's events too
  });
});

/** Moves the chat's clock forward and runs its alarm (deliveries run beside it). */
async function later(chat: string, ms: number) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + ms);
  await runDurableObjectAlarm(chatObject(chat));
}

const outboxRows = (chat: string) =>
  runInDurableObject(chatObject(chat), (_i, s) =>
    s.storage.sql
      .exec("SELECT seq, type, status, attempts, next_at, last_status FROM events WHERE status != 'none' ORDER BY seq")
      .toArray(),
  );

describe("webhook delivery", () => {
  it("sends every event of a round, signed, in seq order per chat, with the results in batch.finished", async () => {
    const url = await inbox("w1");
    await configure(webhookConfig(url));
    const { body } = await parallel("wh1", { tool_calls: [echo(1), echo(2)] });
    const list = await deliveriesOf("w1", [
      "chat.created",
      "job.started",
      "job.finished",
      "batch.finished",
      "chat.idle",
    ]);
    const reference = new Webhook(SECRET);
    for (const d of list) {
      expect(reference.verify(d.body, d.headers)).toBeTruthy();
      expect(await verifyWebhook(SECRET, d.headers, d.body)).toBe(true);
      expect(d.headers["webhook-id"]).toBe(JSON.parse(d.body).id);
      expect(d.headers["content-type"]).toBe("application/json");
    }
    const all = events(list);
    expect(all.map((e) => e.data.seq).sort((a, b) => a - b)).toEqual(all.map((_, i) => i + 1));
    const finished = all.find((e) => e.type === "batch.finished");
    expect(finished.data).toMatchObject({ tenant: "acme", chat_id: "wh1", parent_chat_id: null, root_chat_id: "wh1" });
    expect(finished.data.results).toEqual(body);
    expect(finished.id).toMatch(/^evt_/);
    expect(all.filter((e) => e.type === "chat.idle")).toHaveLength(1);
  });

  it("retries a 500 with the same webhook-id; a waiting event does not hold back the others", async () => {
    const url = await inbox("w2", [500]);
    await configure(webhookConfig(url));
    await parallel("wh2", { tool_calls: [echo(1)] });
    const first = await deliveriesOf("w2", [
      "chat.created",
      "job.started",
      "job.finished",
      "batch.finished",
      "chat.idle",
    ]);
    const failed = first.find((d) => d.status === 500)!;
    expect(first.filter((d) => d.status === 200)).toHaveLength(4); // the others went on meanwhile
    const rows = await outboxRows("wh2");
    expect(rows.filter((r) => r.status === "pending")).toEqual([
      expect.objectContaining({ attempts: 1, last_status: 500 }),
    ]);

    await later("wh2", 5_500);
    const again = await eventually(async () =>
      (await received("w2")).find((d) => d.status === 200 && d.headers["webhook-id"] === failed.headers["webhook-id"]),
    );
    expect(again.body).toBe(failed.body);
    expect(await verifyWebhook(SECRET, again.headers, again.body, { toleranceSeconds: 0 })).toBe(true);
  });

  it("a 400 fails the event at once; it is listed by the failed-events route", async () => {
    const url = await inbox("w3", [400]);
    await configure(webhookConfig(url));
    await parallel("wh3", { tool_calls: [echo(1)] });
    await deliveriesOf("w3", ["chat.idle"]);
    const res = await eventually(async () => {
      const answer = await json(await api("/v1/chats/wh3/events?status=failed"));
      return answer.events.length === 1 ? answer : undefined;
    });
    expect(res.events[0]).toMatchObject({
      attempts: 1,
      last_status: 400,
      last_error: "The receiver answered 400; not retried.",
    });
    // The v1.2 listing's shape: the older failed-events fields, in their order, with `status` after `seq`.
    expect(Object.keys(res.events[0])).toEqual([
      "id",
      "type",
      "seq",
      "status",
      "attempts",
      "last_status",
      "last_error",
      "failed_at",
    ]);
    expect((await api("/v1/chats/wh3/events")).status).toBe(400);
    expect((await api("/v1/chats/nobody/events?status=failed")).status).toBe(404);
  });

  it("with the receiver down, retries at 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then fails", async () => {
    // The receiver drops every connection without answering.
    await configure(webhookConfig(`${toolServer()}/drop`));
    await parallel("wh4", { tool_calls: [echo(1)] });
    const first = await eventually(async () => {
      const rows = await outboxRows("wh4");
      return rows.length && rows.every((r) => r.attempts === 1) ? rows : undefined;
    });
    const seq = first[0]!.seq;
    const delays = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
    for (const [i, delay] of delays.entries()) {
      const before = (await outboxRows("wh4")).find((r) => r.seq === seq)!;
      expect(Number(before.next_at) - Date.now()).toBeGreaterThan(delay - 2_000);
      expect(Number(before.next_at) - Date.now()).toBeLessThanOrEqual(delay);
      await later("wh4", delay);
      await eventually(async () => (await outboxRows("wh4")).find((r) => r.seq === seq)!.attempts === i + 2);
    }
    const last = (await outboxRows("wh4")).find((r) => r.seq === seq)!;
    expect(last).toMatchObject({ status: "failed", attempts: 8, last_status: null });
  });

  // Two deliveries at once: the first two attempts end unanswered after 10 s, the others wait their turn.
  it("gives an attempt 10 s: a receiver that never answers is retried", { timeout: 40_000 }, async () => {
    await configure(webhookConfig(`${toolServer()}/hang`));
    const started = Date.now();
    await parallel("wh10", { tool_calls: [echo(1)] });
    const rows = await eventually(async () => {
      const tried = (await outboxRows("wh10")).filter((r) => r.attempts === 1);
      return tried.length >= DELIVERIES_AT_ONCE ? tried : undefined;
    }, 20_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_500);
    const errors = await runInDurableObject(chatObject("wh10"), (_i, s) =>
      s.storage.sql.exec("SELECT DISTINCT last_error FROM events WHERE attempts = 1").toArray(),
    );
    expect(errors).toEqual([{ last_error: "No answer within 10 s." }]);
    expect(rows.every((r) => r.status === "pending" && r.last_status === null)).toBe(true);
  });

  it("a receiver hanging on one event never holds back the events after it", async () => {
    const url = await inbox("w11", [0]);
    await configure(webhookConfig(url));
    await parallel("wh11", { tool_calls: [echo(1)] });
    await eventually(async () => (await received("w11")).length === 5);
    const started = Date.now();
    await parallel("wh11", { tool_calls: [echo(2)] });
    const secondBatchDone = (e: any) => e.type === "batch.finished" && e.data.results.jobs[0].result === '{"x":2}';
    await eventually(async () => events((await received("w11")).filter((d) => d.status === 200)).some(secondBatchDone));
    expect(Date.now() - started).toBeLessThan(5_000); // long before the hung attempt's 10 s are up
  });

  it("has at most 2 deliveries waiting at once: with the chat's 4 calls, production's budget of 6", async () => {
    const url = await inbox("w-budget", [0, 0, 0, 0]);
    await configure(webhookConfig(url));
    await parallel("wh-budget", { tool_calls: [echo(1)] });
    await eventually(async () => (await received("w-budget")).length >= 2);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await received("w-budget")).toHaveLength(2); // the rest wait for a hung attempt's 10 s
  });

  it("an event too big for a row leaves out its result texts; the job still finishes", async () => {
    const url = await inbox("w12");
    await configure({ ...webhookConfig(url), limits: { max_result_chars: 2_000_000 } });
    const { body } = await parallel("wh12", { tool_calls: [{ tool_name: "big", tool_args: { bytes: 600_000 } }] });
    expect(body.jobs[0]).toMatchObject({ state: "success" });
    expect(body.jobs[0].result).toHaveLength(600_000);
    const list = events(await deliveriesOf("w12", ["job.finished", "batch.finished"]));
    const finished = list.find((e) => e.type === "job.finished");
    expect(finished.data).toMatchObject({ state: "success", truncated: true, result_truncated: true });
    expect(finished.data.result.length).toBeLessThanOrEqual(1000);
    expect(list.find((e) => e.type === "batch.finished").data.results.jobs[0]).toMatchObject({
      state: "success",
      result_truncated: true,
    });
  });

  it("keeps a batch's callback_url while its events wait, even after its jobs are purged", async () => {
    const main = await inbox("w13");
    const callback = await inbox("w13-callback", Array(9).fill(503));
    await configure({ ...webhookConfig(main), limits: { retention_seconds: 60 } });
    await parallel("wh13", { tool_calls: [echo(1)] }, { query: `?callback_url=${encodeURIComponent(callback)}` });
    const attempts = (n: number) =>
      eventually(async () =>
        (await outboxRows("wh13")).filter((r) => r.status === "pending").every((r) => r.attempts === n),
      );
    await attempts(1);
    await later("wh13", 61_000); // retry 2; the jobs pass their retention and are purged
    await attempts(2);
    expect(
      await runInDurableObject(
        chatObject("wh13"),
        (_i, s) => s.storage.sql.exec("SELECT COUNT(*) AS n FROM jobs").one().n,
      ),
    ).toBe(0);
    await later("wh13", 24 * 3600_000); // retry 3, and the purge of settled events runs again
    await attempts(3);
    await later("wh13", 2 * 3600_000 + 1000); // retry 4 succeeds
    await eventually(async () => (await received("w13-callback")).filter((d) => d.status === 200).length === 3);
    expect(
      events(await received("w13"))
        .map((e) => e.type)
        .filter((t) => t.startsWith("job.") || t.startsWith("batch.")),
    ).toEqual([]);
  });

  it("an event waiting for a retry survives the chat being evicted", async () => {
    const url = await inbox("w5", [503]);
    await configure(webhookConfig(url));
    await parallel("wh5", { tool_calls: [echo(1)] });
    const first = await deliveriesOf("w5", ["chat.idle"]);
    const failed = first.find((d) => d.status === 503)!;
    await evictDurableObject(chatObject("wh5"));
    await later("wh5", 6_000);
    await eventually(async () =>
      (await received("w5")).find((d) => d.status === 200 && d.headers["webhook-id"] === failed.headers["webhook-id"]),
    );
  });

  it("a delivered batch.finished collects its jobs", async () => {
    const url = await inbox("w6");
    await configure(webhookConfig(url));
    await parallel("wh6", { tool_calls: [echo(1)], wait: false });
    await deliveriesOf("w6", ["batch.finished"]);
    await eventually(async () => (await json(await api("/v1/chats/wh6/jobs"))).jobs.length === 0);
  });

  it("a batch's callback_url gets that batch's events; chat events still go to webhook.url", async () => {
    const main = await inbox("w7");
    const callback = await inbox("w7-callback");
    await configure(webhookConfig(main));
    await parallel("wh7", { tool_calls: [echo(1)] }, { query: `?callback_url=${encodeURIComponent(callback)}` });
    const batch = await deliveriesOf("w7-callback", ["job.started", "job.finished", "batch.finished"]);
    expect(
      events(batch)
        .map((e) => e.type)
        .sort(),
    ).toEqual(["batch.finished", "job.finished", "job.started"]);
    const chat = await deliveriesOf("w7", ["chat.created", "chat.idle"]);
    expect(
      events(chat)
        .map((e) => e.type)
        .sort(),
    ).toEqual(["chat.created", "chat.idle"]);
  });

  it("a 410 disables the webhook until the configuration is replaced", async () => {
    const url = await inbox("w8", [410]);
    await configure(webhookConfig(url));
    await parallel("wh8", { tool_calls: [echo(1)] });
    await eventually(async () => {
      const rows = await outboxRows("wh8");
      return rows.length && rows.every((r) => r.status === "failed" || r.status === "delivered") ? rows : undefined;
    });
    const gone = (await json(await api("/v1/chats/wh8/events?status=failed"))).events;
    expect(gone.some((e: { last_status: number }) => e.last_status === 410)).toBe(true);
    // Disabled for the whole tenant: another chat's events fail without a request to the receiver.
    const sent = (await received("w8")).length;
    await parallel("wh8b", { tool_calls: [echo(2)] });
    const refused = await eventually(async () => {
      const rows = await outboxRows("wh8b");
      return rows.length && rows.every((r) => r.status === "failed") ? rows : undefined;
    });
    expect(refused.map((r) => r.attempts)).toEqual(refused.map(() => 0));
    const failed = (await json(await api("/v1/chats/wh8b/events?status=failed"))).events;
    expect(failed[0].last_error).toBe(
      "The webhook is disabled after a 410 Gone; PUT or PATCH /v1/config to enable it again.",
    );
    expect((await received("w8")).length).toBe(sent);
    // A new PUT enables it again.
    await configure(webhookConfig(url));
    await parallel("wh8", { tool_calls: [echo(3)] });
    await eventually(
      async () =>
        (await received("w8")).filter((d) => d.status === 200 && JSON.parse(d.body).type === "chat.idle").length >= 1,
    );
  });

  it("child chats' events go out only with include_child_chats; subagent events always do", async () => {
    for (const include of [false, true]) {
      const name = `w9-${include}`;
      const url = await inbox(name);
      const model = `m-wh-children-${include}`;
      await configure(agentConfig(model, { webhook: { url, secret: SECRET, include_child_chats: include } }));
      await scriptLlm(model, [{ content: "child answer" }]);
      const { body } = await parallel(`wh9-${include}`, {
        tool_calls: [call("call_subordinate", { message: "hi", reset: true })],
        timeout: 20,
      });
      const list = events(await deliveriesOf(name, ["subagent.finish", "chat.idle"]));
      const finish = list.find((e) => e.type === "subagent.finish");
      expect(finish.data).toMatchObject({
        status: "success",
        result: "child answer",
        context_id: body.jobs[0].context_id,
        agent: "default",
      });
      const fromChild = () => list.filter((e) => e.data.chat_id === body.jobs[0].context_id);
      if (include) {
        await eventually(async () => {
          list.splice(0, list.length, ...events(await received(name)));
          return fromChild().some((e) => e.type === "chat.created");
        });
        expect(fromChild().find((e) => e.type === "chat.created").data).toMatchObject({
          parent_chat_id: `wh9-${include}`,
          root_chat_id: `wh9-${include}`,
          level: 1,
        });
      } else {
        expect(fromChild()).toEqual([]);
      }
    }
  });
});

describe("Telegram notifications (?notify)", () => {
  const telegramConfig = (model: string) =>
    agentConfig(model, {
      telegram: { bot_token: "123:test-token", api_base_url: `${toolServer()}/telegram` },
      // One model per subagent, so each reads its own script whatever order they run in.
      agents: { planner: { model: `${model}-planner` }, booker: { model: `${model}-booker` } },
    });
  const messages = async (chat: string): Promise<{ token: string; text: string; at: number }[]> =>
    (await fetch(`${toolServer()}/__telegram/messages?chat_id=${encodeURIComponent(chat)}`)).json();

  it("sends a short summary when each subordinate of the batch ends, after the hand-back", async () => {
    const url = await inbox("w-tg");
    await configure({ ...telegramConfig("m-tg"), webhook: { url, secret: SECRET } });
    await scriptLlm("m-tg-planner", [{ content: "The picnic is planned. ".repeat(40) }]);
    await scriptLlm("m-tg-booker", [{ status: 400 }]);
    const notify = encodeURIComponent(JSON.stringify({ telegram_chat_id: 4242 }));
    const { body } = await parallel(
      "tg1",
      {
        tool_calls: [
          call("spawn_task", { task: "Plan the picnic", label: "picnic", agent: "planner" }),
          call("spawn_task", { task: "Book a table", label: "table", agent: "booker" }),
          echo("not a subordinate"),
        ],
        timeout: 30,
      },
      { query: `?notify=${notify}` },
    );
    expect(body.jobs.map((j: { state: string }) => j.state)).toEqual(["success", "error", "success"]);
    const sent = await eventually(async () => {
      const list = await messages("4242");
      return list.length === 2 ? list : undefined;
    });
    const byLabel = Object.fromEntries(sent.map((m) => [m.text.split("\n")[0], m]));
    expect(byLabel["【picnic】done"]!.text.split("\n")[1]).toBe("The picnic is planned. ".repeat(40).slice(0, 500));
    expect(byLabel["【table】failed"]).toBeDefined();
    expect(sent.every((m) => m.token === "123:test-token")).toBe(true);
    // Each message goes out only once the webhook had its try at the hand-back it follows.
    const handBacks = events(await deliveriesOf("w-tg", ["subagent.finish"])).filter(
      (e) => e.type === "subagent.finish",
    );
    const hooks = await received("w-tg");
    const handedBackAt = Math.min(
      ...hooks.filter((d) => JSON.parse(d.body).type === "subagent.finish").map((d) => d.at),
    );
    expect(handBacks).toHaveLength(2);
    expect(Math.min(...sent.map((m) => m.at))).toBeGreaterThanOrEqual(handedBackAt);
  });

  it("refuses notify without a Telegram bot, or without a chat id", async () => {
    await configure(toolConfig());
    const noBot = await parallel(
      "tg2",
      { tool_calls: [echo(1)] },
      { query: `?notify=${encodeURIComponent('{"telegram_chat_id":1}')}` },
    );
    expect(noBot.body.error).toEqual({
      code: "invalid_notify",
      message: "`notify` needs a Telegram bot: set telegram.bot_token with PATCH /v1/config first.",
    });
    await configure(telegramConfig("m-tg2"));
    const noChat = await parallel("tg2", { tool_calls: [echo(1)] }, { query: `?notify=${encodeURIComponent("{}")}` });
    expect(noChat.status).toBe(400);
    expect((await api("/v1/chats/tg2")).status).toBe(404);
  });
});
