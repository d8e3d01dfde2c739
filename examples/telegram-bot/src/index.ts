/**
 * A Telegram bot on fanout (examples/telegram-bot/README.md): Telegram posts
 * updates to /telegram, fanout posts its signed events to /fanout. Both are
 * written down in the chat's Conversation object and acknowledged at once;
 * the agent turn goes on from there.
 */
import { readWebhook } from "@fanout/client";
import type { Env } from "./env";
import { hasSecretToken, textMessage } from "./telegram";

export { Conversation } from "./conversation";

const conversation = (env: Env, chatId: number) => env.CONVERSATION.getByName(String(chatId));

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (request.method === "GET" && pathname === "/healthz") return new Response("ok");
    if (request.method !== "POST") return new Response("not found", { status: 404 });

    if (pathname === "/telegram") {
      const token = request.headers.get("x-telegram-bot-api-secret-token");
      if (!(await hasSecretToken(token, env.TELEGRAM_SECRET_TOKEN))) return new Response("unauthorized", { status: 401 });
      const message = textMessage(await request.json().catch(() => null));
      if (message) await conversation(env, message.chat_id).userMessage(message.chat_id, message.text);
      return new Response("ok"); // Telegram resends an update until it gets a 2xx
    }

    if (pathname === "/fanout") {
      const event = await readWebhook(env.FANOUT_WEBHOOK_SECRET, request.headers, await request.text());
      if (!event) return new Response("bad signature", { status: 401 });
      if (event.type === "webhook.test") return new Response(null, { status: 204 }); // `fanout webhook test`: belongs to no chat
      // The Telegram chat rides on the batch as its metadata (see Conversation.#startBatch): no lookup.
      const telegramChat = event.type === "batch.finished" ? event.data.metadata?.telegram_chat_id : undefined;
      if (event.type === "batch.finished" && Number.isSafeInteger(telegramChat)) await conversation(env, telegramChat as number).batchFinished(event.data.results);
      return new Response(null, { status: 204 });
    }

    return new Response("not found", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
