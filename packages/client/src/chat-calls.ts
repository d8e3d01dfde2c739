/**
 * The client's calls that read a chat: its record, a subagent's transcript, its usage, the
 * tenant's chat list, and the deliveries of its events (with a redelivery). `Fanout` answers for
 * them (its methods carry the documentation); apart so each route group reads alone.
 */
import type { Routes } from "./routes.js";
import type { ChatInfo, ChatList, ChatUsage, Delivery, DeliveryStatus, Transcript } from "./types.js";

export function chat(routes: Routes, chatId: string, options: { signal?: AbortSignal }): Promise<ChatInfo> {
  return routes.send(options.signal, () =>
    routes.api.GET("/v1/chats/{chat_id}", { params: { path: { chat_id: chatId } }, signal: options.signal }),
  );
}

export function transcript(
  routes: Routes,
  chatId: string,
  options: { limit?: number; signal?: AbortSignal },
): Promise<Transcript> {
  const query = options.limit ? { limit: String(options.limit) } : {};
  return routes.send(options.signal, () =>
    routes.api.GET("/v1/chats/{chat_id}/transcript", {
      params: { path: { chat_id: chatId }, query },
      signal: options.signal,
    }),
  );
}

export function usage(routes: Routes, chatId: string, options: { signal?: AbortSignal }): Promise<ChatUsage> {
  return routes.send(options.signal, () =>
    routes.api.GET("/v1/chats/{chat_id}/usage", { params: { path: { chat_id: chatId } }, signal: options.signal }),
  );
}

export function chats(
  routes: Routes,
  options: { cursor?: string; limit?: number; signal?: AbortSignal },
): Promise<ChatList> {
  const query = {
    ...(options.cursor ? { cursor: options.cursor } : {}),
    ...(options.limit ? { limit: String(options.limit) } : {}),
  };
  return routes.send(options.signal, () => routes.api.GET("/v1/chats", { params: { query }, signal: options.signal }));
}

export async function deliveries(
  routes: Routes,
  chatId: string,
  status: DeliveryStatus,
  options: { signal?: AbortSignal },
): Promise<Delivery[]> {
  const answer = await routes.send(options.signal, () =>
    routes.api.GET("/v1/chats/{chat_id}/events", {
      params: { path: { chat_id: chatId }, query: { status } },
      signal: options.signal,
    }),
  );
  return answer.events;
}

export function redeliver(
  routes: Routes,
  chatId: string,
  eventId: string,
  options: { signal?: AbortSignal },
): Promise<Delivery> {
  return routes.send(options.signal, () =>
    routes.api.POST("/v1/chats/{chat_id}/events/{event_id}/redeliver", {
      params: { path: { chat_id: chatId, event_id: eventId } },
      signal: options.signal,
    }),
  );
}
