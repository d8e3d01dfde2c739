/**
 * The example bot end to end, on `@fanout/testing` (test/harness.ts): a
 * Telegram update in, an agent turn whose tool calls run in fanout with
 * `wait: false`, the turn continued by fanout's signed `batch.finished`, and
 * the reply sent to the fake Telegram Bot API.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eventually } from "../../../test/eventually";
import { BOT_EVENTS } from "../scripts/wiring.mjs";
import { SECRETS, startBot, type BotUnderTest } from "./harness";

let harness: BotUnderTest;
beforeAll(async () => {
  harness = await startBot();
});
afterAll(() => harness?.stop());

const bot = () => harness.botUrl;
const fake = () => harness.fakeUrl;
const model = () => harness.fanout.model;

let updateId = 0;
const telegramUpdate = (
  chatId: number,
  text: string,
  secret = SECRETS.telegramSecret,
  headers: Record<string, string> = {},
) =>
  fetch(`${bot()}/telegram`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret, ...headers },
    body: JSON.stringify({
      update_id: ++updateId,
      message: { message_id: updateId, date: 0, chat: { id: chatId, type: "private" }, text },
    }),
  });

/** The model's turns, in order: a call of `parallel`, or a text reply. */
const script = (...turns: (ReturnType<typeof parallelCall> | string)[]) => {
  for (const turn of turns) typeof turn === "string" ? model().reply(turn) : model().callTools([turn]);
};
// Each test scripts its own turns and reads only the requests made since it began.
beforeEach(() => model().reset());
afterEach(() => model().reset());
const llmRequests = () => model().requests as unknown as { messages: { role: string; content: string | null }[] }[];
const sent = async (chatId: number) =>
  (await (await fetch(`${fake()}/__telegram/messages?chat_id=${chatId}`)).json()) as { text: string; token: string }[];

const parallelCall = (...seconds: number[]) => ({
  name: "parallel",
  args: { tool_calls: seconds.map((s) => ({ tool_name: "wait", tool_args: { seconds: s } })) },
});

describe("the Telegram bot on fanout", () => {
  it("passes the trace its update came with on to fanout: the turn's batch joins it", async () => {
    script(parallelCall(0.01), "Done.");
    const trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    const ack = await telegramUpdate(4209, "Trace me.", SECRETS.telegramSecret, {
      traceparent: `00-${trace}-00f067aa0ba902b7-01`,
    });
    expect(ack.status).toBe(200);
    const finished = await harness.fanout.webhooks.next(
      (e) => e.type === "batch.finished" && (e.data as { chat_id?: string }).chat_id === "tg-4209",
    );
    expect((finished.data as { trace_id?: string }).trace_id).toBe(trace);
    // The turn ends with its reply before the next test scripts the model.
    await eventually(async () => (await sent(4209)).length > 0);
  });

  it("acknowledges the update at once, runs the tool calls in fanout and replies when they are done", async () => {
    script(parallelCall(1, 1), "Both waits are done.");
    const started = Date.now();
    const ack = await telegramUpdate(4201, "Wait twice, please.");
    expect(ack.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000); // long before the 1 s jobs end
    expect(await sent(4201)).toEqual([]);

    const [reply] = await eventually(async () => {
      const list = await sent(4201);
      return list.length ? list : undefined;
    });
    expect(reply).toMatchObject({ text: "Both waits are done.", token: SECRETS.telegramToken });
    const [first, second] = llmRequests();
    expect(first!.messages.at(-1)).toMatchObject({ role: "user", content: "Wait twice, please." });
    const toolMessage = second!.messages.at(-1)!;
    expect(toolMessage.role).toBe("tool");
    const results = JSON.parse(toolMessage.content!);
    expect(results.status).toBe("success");
    expect(results.jobs.map((j: { tool_name: string; state: string }) => [j.tool_name, j.state])).toEqual([
      ["wait", "success"],
      ["wait", "success"],
    ]);
  });

  it("holds a message sent while its batch runs until the tool results are in", async () => {
    script(parallelCall(2), "Done, and noted.");
    await telegramUpdate(4202, "Wait two seconds.");
    await eventually(async () => llmRequests().length === 1, 20_000);
    await new Promise((r) => setTimeout(r, 300));
    await telegramUpdate(4202, "Also, remember milk.");
    await eventually(async () => (await sent(4202)).length === 1);
    const second = llmRequests()[1]!;
    expect(second.messages.slice(1).map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(second.messages.at(-1)!.content).toBe("Also, remember milk.");
  });

  it("continues a turn once however often fanout delivers its batch.finished", async () => {
    script(parallelCall(30), "Once.", "Twice!");
    await telegramUpdate(4203, "Go.");
    const fanoutApi = (path: string, body?: unknown) =>
      fetch(`${harness.fanout.url}${path}`, {
        method: body ? "POST" : "GET",
        headers: { authorization: `Bearer ${harness.fanout.apiKey}`, "content-type": "application/json" },
        body: body ? JSON.stringify(body) : undefined,
      }).then((r) => r.json());
    const [job] = await eventually(
      async () => (await fanoutApi("/v1/chats/tg-4203/jobs").catch(() => undefined))?.jobs,
    );
    // The batch carries its Telegram chat, which is how the bot routes the event below, and the turn it
    // handed over, which the event brings back.
    const record = await fanoutApi(`/v1/chats/tg-4203/jobs/${job.job_id}`);
    expect(record.metadata).toEqual({ telegram_chat_id: 4203 });
    const batch = await fanoutApi(`/v1/chats/tg-4203/batches/${record.batch_id}`);
    expect(batch.context).toMatchObject({ telegram_chat_id: 4203, steps: 1 });
    // fanout delivers at least once: the same event, signed as fanout signs it, arrives twice.
    const body = JSON.stringify({
      id: "evt_twice",
      type: "batch.finished",
      timestamp: new Date().toISOString(),
      data: {
        tenant: harness.fanout.tenant,
        chat_id: "tg-4203",
        parent_chat_id: null,
        root_chat_id: "tg-4203",
        seq: 9,
        batch_id: record.batch_id,
        metadata: { telegram_chat_id: 4203 },
        context: batch.context,
        tool_calls: batch.tool_calls,
        results: {
          status: "success",
          jobs: [{ job_id: job.job_id, tool_name: "wait", state: "success", duration_seconds: 1, result: "ok" }],
        },
      },
    });
    const deliver = () => {
      const now = new Date();
      const signature = new Webhook(harness.fanout.webhooks.secret).sign("evt_twice", now, body);
      const headers = {
        "content-type": "application/json",
        "webhook-id": "evt_twice",
        "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
        "webhook-signature": signature,
      };
      return fetch(`${bot()}/fanout`, { method: "POST", headers, body });
    };
    expect((await deliver()).status).toBe(204);
    expect((await deliver()).status).toBe(204);
    await eventually(async () => (await sent(4203)).length === 1);
    await new Promise((r) => setTimeout(r, 500));
    expect((await sent(4203)).map((m) => m.text)).toEqual(["Once."]);
    expect(llmRequests()).toHaveLength(2);
    await fanoutApi("/v1/chats/tg-4203/parallel", { action: "cancel", job_ids: [job.job_id] });
  });

  it("goes on from batch.finished after a restart that lost its storage: the event brings the turn back", async () => {
    script(parallelCall(300), "Still here after the restart.");
    await telegramUpdate(4210, "Wait five minutes.");
    await eventually(async () => llmRequests().length === 1, 20_000);
    const job = await eventually(async () => (await harness.fanout.client.jobs("tg-4210").catch(() => [])).at(0));
    await harness.restartBot();
    // The batch ends only now, with the bot restarted and its storage gone: only the event can go on.
    await harness.fanout.client.cancel("tg-4210", [job.job_id]);
    const [reply] = await eventually(async () => {
      const list = await sent(4210);
      return list.length ? list : undefined;
    }, 30_000);
    expect(reply!.text).toBe("Still here after the restart.");
    // The model's second request is the whole conversation, taken back from the event.
    const second = llmRequests()[1]!;
    expect(second.messages.slice(1).map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(second.messages[1]).toMatchObject({ role: "user", content: "Wait five minutes." });
    expect(second.messages.at(-1)!.content).toContain("cancelled");
  }, 60_000);

  it("asks in the chat before a call under an approval rule runs, and runs it once the button is pressed", async () => {
    const fanoutApi = (path: string, body: unknown, method = "POST") =>
      fetch(`${harness.fanout.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${harness.fanout.apiKey}`,
          "content-type": method === "PATCH" ? "application/merge-patch+json" : "application/json",
        },
        body: JSON.stringify(body),
      });
    expect(
      (await fanoutApi("/v1/config", { approvals: [{ tools: ["wait"], timeout_seconds: 600 }] }, "PATCH")).status,
    ).toBe(200);
    try {
      script(parallelCall(0.01), "Waited, with your blessing.");
      await telegramUpdate(4205, "Wait a moment, if I say so.");
      const [question] = await eventually(async () => {
        const list = await sent(4205);
        return list.length
          ? (list as unknown as {
              text: string;
              message_id: number;
              reply_markup?: { inline_keyboard: { text: string; callback_data: string }[][] };
            }[])
          : undefined;
      }, 20_000);
      expect(question!.text).toMatch(
        /^The assistant wants to run wait:\n\{\n "seconds": 0\.01\n\}\nApprove it before \d{4}-\d\d-\d\d \d\d:\d\d UTC\?$/,
      );
      expect(question!.reply_markup!.inline_keyboard[0]!.map((b) => b.text)).toEqual(["Approve", "Deny"]);
      // Nothing ran yet: the model has been asked once, and the reply waits for the person.
      expect(llmRequests()).toHaveLength(1);

      const press = await (
        await fetch(`${fake()}/__telegram/press`, {
          method: "POST",
          body: JSON.stringify({ chat_id: 4205, button: "Approve", from: { username: "ana" } }),
        })
      ).json();
      expect(press.status).toBe(200);
      const [edited, reply] = await eventually(async () => {
        const list = await sent(4205);
        return list.length === 2 ? (list as unknown as { text: string; reply_markup?: unknown }[]) : undefined;
      }, 20_000);
      expect(edited!.text).toBe("✅ Approved by @ana: wait runs now.");
      expect(edited).not.toHaveProperty("reply_markup");
      expect(reply!.text).toBe("Waited, with your blessing.");
      const answers = (await (await fetch(`${fake()}/__telegram/answers`)).json()) as {
        callback_query_id: string;
        text: string;
      }[];
      expect(answers.find((a) => a.callback_query_id === press.callback_query_id)?.text).toBe("Approved");

      // A late press of the other button (a second phone, a stale screen) changes nothing and says why.
      const deny = question!.reply_markup!.inline_keyboard[0]![1]!.callback_data;
      const late = await fetch(`${bot()}/telegram`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRETS.telegramSecret },
        body: JSON.stringify({
          update_id: ++updateId,
          callback_query: {
            id: "late-1",
            from: { id: 8, first_name: "Bo" },
            data: deny,
            message: { message_id: question!.message_id, chat: { id: 4205 } },
          },
        }),
      });
      expect(late.status).toBe(200);
      const lateAnswer = await eventually(async () =>
        (
          (await (await fetch(`${fake()}/__telegram/answers`)).json()) as { callback_query_id: string; text: string }[]
        ).find((a) => a.callback_query_id === "late-1"),
      );
      expect(lateAnswer.text).toBe("Already approved");
      expect((await sent(4205)).map((m) => m.text)).toEqual([
        "✅ Approved by @ana: wait runs now.",
        "Waited, with your blessing.",
      ]);
    } finally {
      await fanoutApi("/v1/config", { approvals: [] }, "PATCH");
    }
  });

  it("is sent only the events it acts on", async () => {
    const config = await harness.fanout.client.config();
    expect(config.webhook!.events).toEqual(BOT_EVENTS);
    expect(BOT_EVENTS).toEqual(["batch.finished", "job.approval_requested", "job.approval_decided"]);
  });

  it("refuses updates without Telegram's secret token and events without fanout's signature", async () => {
    expect((await telegramUpdate(4204, "hi", "wrong")).status).toBe(401);
    const unsigned = await fetch(`${bot()}/fanout`, {
      method: "POST",
      body: JSON.stringify({ id: "evt_x", type: "batch.finished", data: {} }),
    });
    expect(unsigned.status).toBe(401);
  });
});
