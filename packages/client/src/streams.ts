/**
 * How the client opens a live event stream (`./events.ts` keeps it alive): the WebSocket address of
 * a chat's stream or the tenant's, a single-use ticket for each connection (browsers cannot send an
 * Authorization header there), and whether a chat that refuses a stream exists yet.
 */
import { FanoutError } from "./errors.js";
import { EventStream, type StreamOptions } from "./events.js";
import type { Routes } from "./routes.js";
import { webSocketClass } from "./websocket.js";

/** `chat`: reads the chat's record (the client's own `chat`), to tell a chat not created yet. */
export async function openEvents(
  routes: Routes,
  chatId: string | null,
  options: StreamOptions,
  chat: (chatId: string) => Promise<unknown>,
): Promise<EventStream> {
  const path = chatId === null ? "/v1/events" : `/v1/chats/${encodeURIComponent(chatId)}/events`;
  const url = new URL(routes.url.pathname.replace(/\/$/, "") + path, routes.url);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return EventStream.open(
    {
      url,
      position: chatId === null ? "cursor" : "seq",
      ticket: () => ticket(routes, chatId),
      WebSocket: await webSocketClass(routes.webSocket),
      ...(chatId === null ? {} : { chatExists: () => chatExists(chatId, chat) }),
      attempts: routes.attempts,
    },
    options,
  );
}

async function chatExists(chatId: string, chat: (chatId: string) => Promise<unknown>): Promise<boolean | undefined> {
  try {
    await chat(chatId);
    return true;
  } catch (e) {
    return e instanceof FanoutError && e.code === "chat_not_found" ? false : undefined;
  }
}

/** A single-use ticket for one stream (browsers cannot send an Authorization header there). */
async function ticket(routes: Routes, chatId: string | null): Promise<string> {
  const answer = await routes.send(undefined, () =>
    routes.api.POST("/v1/ws-tickets", { body: chatId === null ? {} : { chat_id: chatId } }),
  );
  return answer.ticket;
}
