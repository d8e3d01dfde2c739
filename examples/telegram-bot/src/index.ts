/**
 * A Telegram bot on fanout (examples/telegram-bot/README.md): Telegram posts
 * updates to /telegram, fanout posts its signed events to /fanout. Both are
 * written down in the chat's Conversation object and acknowledged at once;
 * the agent turn goes on from there.
 */
import { readWebhook } from "@fanout/client";
import type { Env } from "./env";
import { buttonPress, hasSecretToken, textMessage } from "./telegram";

export { Conversation } from "./conversation";

const conversation = (env: Env, chatId: number) => env.CONVERSATION.getByName(String(chatId));

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (request.method === "GET" && pathname === "/healthz") return new Response("ok");
    if (request.method !== "POST") return new Response("not found", { status: 404 });

    if (pathname === "/telegram") {
      const token = request.headers.get("x-telegram-bot-api-secret-token");
      if (!(await hasSecretToken(token, env.TELEGRAM_SECRET_TOKEN)))
        return new Response("unauthorized", { status: 401 });
      const update = await request.json().catch(() => null);
      const message = textMessage(update);
      // Trace context from whatever traces the bot's requests: its turn's fanout batches join that trace.
      const trace = {
        ...(request.headers.get("traceparent") ? { traceparent: request.headers.get("traceparent")! } : {}),
        ...(request.headers.get("tracestate") ? { tracestate: request.headers.get("tracestate")! } : {}),
      };
      if (message) await conversation(env, message.chat_id).userMessage(message.chat_id, message.text, trace);
      const press = buttonPress(update);
      if (press) await conversation(env, press.chat_id).buttonPressed(press.chat_id, press);
      return new Response("ok"); // Telegram resends an update until it gets a 2xx
    }

    if (pathname === "/fanout") {
      const event = await readWebhook(env.FANOUT_WEBHOOK_SECRET, request.headers, await request.text());
      if (!event) return new Response("bad signature", { status: 401 });
      if (event.type === "webhook.test") return new Response(null, { status: 204 }); // `fanout webhook test`: belongs to no chat
      // The Telegram chat rides on the batch as its metadata (see Conversation.#startBatch), a subagent's
      // calls included: no lookup.
      const telegramChat = (event.data as { metadata?: { telegram_chat_id?: unknown } }).metadata?.telegram_chat_id;
      if (typeof telegramChat !== "number" || !Number.isSafeInteger(telegramChat))
        return new Response(null, { status: 204 });
      const chat = conversation(env, telegramChat);
      if (event.type === "batch.finished") await chat.batchFinished({ type: event.type, data: event.data });
      if (event.type === "job.approval_requested") await chat.approvalRequested(telegramChat, event.data);
      if (event.type === "job.approval_decided")
        await chat.approvalDecided(telegramChat, event.data.job_id, event.data.decision, event.data.by);
      return new Response(null, { status: 204 });
    }

    return new Response("not found", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
