/** The webhook receiver: signed deliveries only, each event once, `next` in order, and passing them on to a bot. */
import { createServer } from "node:http";
import { verifyWebhook } from "@fanout/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFanout, type TestFanout } from "../src/index.js";

let fanout: TestFanout;
beforeAll(async () => {
  fanout = await startFanout({ config: { webhook: { events: ["batch.finished", "job.finished"] } } });
});
afterAll(() => fanout.stop());

const wait = (chat: string) =>
  fanout.client.parallel(chat, { tool_calls: [{ tool_name: "wait", tool_args: { seconds: 0.01 } }] });

describe("webhooks", () => {
  it("next(type) resolves with the event, typed by its type, and never hands the same one out twice", async () => {
    await wait("hooks-1");
    await wait("hooks-1");
    const first = await fanout.webhooks.next("batch.finished");
    const second = await fanout.webhooks.next("batch.finished");
    expect(first.data.chat_id).toBe("hooks-1");
    expect(first.data.results.jobs[0]!.tool_name).toBe("wait");
    expect(second.data.batch_id).not.toBe(first.data.batch_id);
    expect(
      await fanout.webhooks.next((e) => e.type === "job.finished" && e.data.batch_id === second.data.batch_id),
    ).toMatchObject({ type: "job.finished" });
  });

  it("keeps the test's webhook.events filter, and says what arrived when nothing matches", async () => {
    await wait("hooks-2");
    await fanout.webhooks.next((e) => e.type === "batch.finished" && e.data.chat_id === "hooks-2");
    expect(fanout.webhooks.received.map((e) => e.type)).not.toContain("chat.created");
    await expect(fanout.webhooks.next("chat.created", { timeoutMs: 200 })).rejects.toThrow(
      /No 'chat.created' event arrived within 200 ms\. Received so far: .*batch\.finished.*'chat\.created' is not in webhook\.events \(batch\.finished, job\.finished\): add it/,
    );
  });

  it("says an earlier next() took the events of a type, and blames no filter that lets the type through", async () => {
    await wait("hooks-taken");
    await fanout.webhooks.next((e) => e.type === "batch.finished" && e.data.chat_id === "hooks-taken");
    const timedOut = await fanout.webhooks.next("batch.finished", { timeoutMs: 200 }).catch((e: Error) => e);
    expect(String(timedOut)).toMatch(/'batch\.finished' event\(s\) arrived and an earlier next\(\) took each of them/);
    expect(String(timedOut)).not.toContain("webhook.events");
  });

  it("rejects a next() whose test throws, and goes on receiving for the others", async () => {
    const careless = expect(
      fanout.webhooks.next(
        (e) => (e as unknown as { data: { results: { status: string } } }).data.results.status === "success",
      ),
    ).rejects.toThrow(TypeError);
    await wait("hooks-throw");
    await careless;
    const finished = await fanout.webhooks.next((e) => e.type === "batch.finished" && e.data.chat_id === "hooks-throw");
    expect(finished.type).toBe("batch.finished");
  });

  it("refuses a delivery with a bad signature", async () => {
    const res = await fetch((await fanout.client.config()).webhook!.url, {
      method: "POST",
      headers: {
        "webhook-id": "evt_forged",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,AAAA",
      },
      body: JSON.stringify({ id: "evt_forged", type: "batch.finished", timestamp: new Date().toISOString(), data: {} }),
    });
    expect(res.status).toBe(401);
    expect(fanout.webhooks.rejected).toBe(1);
    expect(fanout.webhooks.received.some((e) => e.id === "evt_forged")).toBe(false);
  });

  it("passes each delivery on to the bot as fanout signed it, and fanout retries what the bot refuses", async () => {
    const bodies: string[] = [];
    let refuse = true;
    const bot = createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      const headers = new Headers(Object.entries(req.headers).map(([k, v]): [string, string] => [k, String(v)]));
      if (!(await verifyWebhook(fanout.webhooks.secret, headers, body))) return res.writeHead(401).end();
      bodies.push(body);
      const first = refuse && JSON.parse(body).type === "batch.finished";
      if (first) refuse = false;
      res.writeHead(first ? 503 : 204).end();
    });
    await new Promise<void>((resolve) => bot.listen(0, "127.0.0.1", resolve));
    fanout.webhooks.forward(`http://127.0.0.1:${(bot.address() as { port: number }).port}/fanout`);
    try {
      await wait("hooks-3");
      const event = await fanout.webhooks.next((e) => e.type === "batch.finished" && e.data.chat_id === "hooks-3", {
        timeoutMs: 15_000,
      });
      // Refused once (503), delivered on fanout's retry 5 s later: the bot saw it twice, the test once.
      const forEvent = bodies.filter((b) => JSON.parse(b).id === event.id);
      expect(forEvent).toHaveLength(2);
      expect(fanout.webhooks.received.filter((e) => e.id === event.id)).toHaveLength(1);
    } finally {
      fanout.webhooks.forward(null);
      bot.close();
    }
  });

  it("says, when an event never arrives, that the bot refused it", async () => {
    const bot = createServer((_req, res) => res.writeHead(401).end());
    await new Promise<void>((resolve) => bot.listen(0, "127.0.0.1", resolve));
    fanout.webhooks.forward(`http://127.0.0.1:${(bot.address() as { port: number }).port}/fanout`);
    try {
      await wait("hooks-4");
      await expect(
        fanout.webhooks.next((e) => e.type === "batch.finished" && e.data.chat_id === "hooks-4", { timeoutMs: 1500 }),
      ).rejects.toThrow(
        /The bot answered 401: it verifies with another secret than fanout\.webhooks\.secret.*The bot refused: .*batch\.finished evt_\S+: HTTP 401/,
      );
    } finally {
      fanout.webhooks.forward(null);
      bot.close();
    }
  });

  it("reset() forgets what arrived, so a later next() waits for a new event", async () => {
    await wait("hooks-5");
    await fanout.webhooks.next((e) => e.type === "batch.finished" && e.data.chat_id === "hooks-5");
    fanout.webhooks.reset();
    expect(fanout.webhooks.received).toEqual([]);
    // The event that did arrive is not handed out again. (Another chat's may arrive meanwhile: the
    // test before this one refused its deliveries, which fanout sends again 5 s later.)
    await expect(
      fanout.webhooks.next((e) => e.type === "batch.finished" && e.data.chat_id === "hooks-5", { timeoutMs: 300 }),
    ).rejects.toThrow(/No matching event arrived within 300 ms/);
  });
});
