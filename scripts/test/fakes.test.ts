/**
 * The fakes that the tests and `npm run bot` share (scripts/fakes/), over
 * HTTP as fanout and the bot use them: the LLM's scripts and its demo model,
 * the Telegram API's record of sent messages, and the weather tool's
 * signature check.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_MODEL } from "../fakes/llm.mjs";
import { startFakes, type Fakes } from "../fakes/server.mjs";
import { FORECAST_MS, forecast } from "../fakes/weather.mjs";

const SECRET = `whsec_${Buffer.alloc(32, 3).toString("base64")}`;
let fakes: Fakes;
const seen: string[] = [];

beforeAll(async () => {
  fakes = await startFakes({ weatherSecret: SECRET, onMessage: (m) => seen.push(m.text) });
});
afterAll(() => fakes?.close());

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${fakes.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const complete = async (model: string, messages: unknown[]) => {
  const res = await post("/llm/v1/chat/completions", { model, messages });
  expect(res.status).toBe(200);
  return (
    (await res.json()) as {
      choices: {
        message: {
          content: string | null;
          tool_calls?: { id: string; function: { name: string; arguments: string } }[];
        };
      }[];
    }
  ).choices[0]!.message;
};

describe("the fake LLM", () => {
  it("asks as the demo model for two weather calls in one message, then answers with their results", async () => {
    const question = { role: "user", content: "Weather?" };
    const first = await complete(DEMO_MODEL, [{ role: "system", content: "…" }, question]);
    expect(first.content).toBeNull();
    expect(first.tool_calls!.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ["weather", { city: "Oslo" }],
      ["weather", { city: "Lisbon" }],
    ]);
    const [a, b] = first.tool_calls!;
    const answer = await complete(DEMO_MODEL, [
      question,
      { role: "assistant", content: null, tool_calls: first.tool_calls },
      { role: "tool", tool_call_id: a!.id, content: "Oslo: 3 °C, fog" },
      { role: "tool", tool_call_id: b!.id, content: "Lisbon: 18 °C, sunny" },
    ]);
    expect(answer.tool_calls).toBeUndefined();
    expect(answer.content).toBe(
      "You asked: Weather?\nOslo: 3 °C, fog\nLisbon: 18 °C, sunny\n(2 tool calls, run at the same time by fanout)",
    );
  });

  it("answers a scripted model's replies in order, records its requests, then says its script is finished", async () => {
    await post("/__llm/script", {
      model: "m-fakes",
      replies: [{ tool_calls: [{ name: "wait", arguments: { seconds: 1 } }] }, { content: "two" }],
    });
    expect((await complete("m-fakes", [{ role: "user", content: "1" }])).tool_calls![0]!.function).toEqual({
      name: "wait",
      arguments: '{"seconds":1}',
    });
    expect((await complete("m-fakes", [{ role: "user", content: "2" }])).content).toBe("two");
    expect((await complete("m-fakes", [{ role: "user", content: "3" }])).content).toBe("(script finished)");
    const requests = (await (await fetch(`${fakes.url}/__llm/requests?model=m-fakes`)).json()) as {
      messages: { content: string }[];
    }[];
    expect(requests.map((r) => r.messages[0]!.content)).toEqual(["1", "2", "3"]);
  });

  it("refuses a body that is not JSON with a 400 the caller can read", async () => {
    const res = await post("/llm/v1/chat/completions", "{not json");
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { message: "the body is not JSON" } });
  });
});

describe("the fake Telegram Bot API", () => {
  it("records what a bot sends, per chat and in all, and tells the runner", async () => {
    const send = (chat_id: number, text: string) => post("/telegram/bot123:tok/sendMessage", { chat_id, text });
    expect(await (await send(7, "hello")).json()).toMatchObject({ ok: true, result: { message_id: 1 } });
    await send(8, "other chat");
    const inChat = await (await fetch(`${fakes.url}/__telegram/messages?chat_id=7`)).json();
    expect(inChat).toEqual([
      { token: "123:tok", chat_id: 7, message_id: 1, text: "hello", at: expect.any(Number), edits: 0 },
    ]);
    const all = (await (await fetch(`${fakes.url}/__telegram/messages`)).json()) as { text: string }[];
    expect(all.map((m) => m.text)).toEqual(["hello", "other chat"]);
    expect(seen).toEqual(["hello", "other chat"]);
  });

  it("keeps a message's keyboard, edits it, and presses a button as a user would, at the bot's webhook", async () => {
    const updates: { headers: Record<string, unknown>; body: any }[] = [];
    const bot = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        updates.push({ headers: req.headers, body: JSON.parse(body) });
        res.writeHead(200).end("ok");
      });
    });
    await new Promise<void>((r) => bot.listen(0, "127.0.0.1", r));
    try {
      const keyboard = {
        inline_keyboard: [
          [
            { text: "Approve", callback_data: "ap:y:job-1" },
            { text: "Deny", callback_data: "ap:n:job-1" },
          ],
        ],
      };
      const sentMessage = await (
        await post("/telegram/bot9:kb/sendMessage", { chat_id: 77, text: "Send it?", reply_markup: keyboard })
      ).json();
      const id = sentMessage.result.message_id;
      // no webhook set yet
      expect((await post("/__telegram/press", { chat_id: 77, button: "Approve" })).status).toBe(409);
      const { port } = bot.address() as AddressInfo;
      await post("/telegram/bot9:kb/setWebhook", { url: `http://127.0.0.1:${port}/telegram`, secret_token: "s3cret" });
      const pressed = await (await post("/__telegram/press", { chat_id: 77, button: "Approve" })).json();
      expect(pressed.status).toBe(200);
      expect(updates).toHaveLength(1);
      expect(updates[0]!.headers["x-telegram-bot-api-secret-token"]).toBe("s3cret");
      expect(updates[0]!.body.callback_query).toMatchObject({
        id: pressed.callback_query_id,
        data: "ap:y:job-1",
        from: { username: "tester" },
        message: { message_id: id, chat: { id: 77 } },
      });
      await post("/telegram/bot9:kb/answerCallbackQuery", {
        callback_query_id: pressed.callback_query_id,
        text: "Approved",
      });
      expect(await (await fetch(`${fakes.url}/__telegram/answers`)).json()).toEqual([
        { callback_query_id: pressed.callback_query_id, text: "Approved", at: expect.any(Number) },
      ]);
      await post("/telegram/bot9:kb/editMessageText", { chat_id: 77, message_id: id, text: "Approved by tester" });
      const [edited] = (await (await fetch(`${fakes.url}/__telegram/messages?chat_id=77`)).json()) as {
        text: string;
        edits: number;
        reply_markup?: unknown;
      }[];
      expect(edited).toMatchObject({ text: "Approved by tester", edits: 1 });
      expect(edited).not.toHaveProperty("reply_markup");
      // the keyboard is gone
      expect((await post("/__telegram/press", { chat_id: 77, button: "Approve" })).status).toBe(404);
    } finally {
      bot.close();
    }
  });

  it("answers a message without text as Telegram does, with a 400 and a description", async () => {
    const res = await post("/telegram/bot123:tok/sendMessage", { chat_id: 7 });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ ok: false, description: expect.stringMatching(/text/) });
  });
});

describe("the weather tool", () => {
  const signed = (body: string, secret = SECRET) => {
    const now = new Date();
    return {
      "webhook-id": "weather-1.1",
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign("weather-1.1", now, body),
    };
  };

  it("answers a call signed with its secret with the city's forecast, after a second", async () => {
    const body = JSON.stringify({
      tool_name: "weather",
      tool_args: { city: "Oslo" },
      job_id: "weather-1",
      chat_id: "c",
      attempt: 1,
    });
    const started = Date.now();
    const res = await post("/tools/weather", body, signed(body));
    expect(await res.json()).toEqual({ result: forecast("Oslo") });
    expect(Date.now() - started).toBeGreaterThanOrEqual(FORECAST_MS - 50);
    const calls = (await (await fetch(`${fakes.url}/__tools/weather/calls`)).json()) as {
      city: string;
      job_id: string;
    }[];
    expect(calls.at(-1)).toMatchObject({
      city: "Oslo",
      job_id: "weather-1",
      started_at: expect.any(Number),
      ended_at: expect.any(Number),
    });
  });

  it("refuses a call that is unsigned or signed with another secret", async () => {
    const body = JSON.stringify({ tool_args: { city: "Oslo" }, job_id: "weather-2" });
    expect((await post("/tools/weather", body)).status).toBe(401);
    const other = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
    const res = await post("/tools/weather", body, signed(body, other));
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toMatch(/secret/);
  });

  it("answers a call without a city with a tool error that says what to send", async () => {
    const body = JSON.stringify({ tool_args: {}, job_id: "weather-3" });
    expect(await (await post("/tools/weather", body, signed(body))).json()).toEqual({
      error: 'weather needs a city, e.g. {"city":"Oslo"}',
    });
  });

  it("gives every city the same made-up forecast each time", () => {
    expect(forecast("Lisbon")).toBe(forecast("Lisbon"));
    expect(forecast("Lisbon")).toMatch(/^Lisbon: -?\d+ °C, [a-z ]+$/);
  });
});
