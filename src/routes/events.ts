/**
 * A chat's events (SPEC §6). Without a WebSocket upgrade, `?status=failed`
 * lists the events whose webhook delivery gave up, so an operator can see
 * what a receiver missed.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { ApiError, badRequest } from "../http/errors";
import { chatIdParam, chatNotFound, chatStub } from "./context";

export const eventRoutes = new Hono<AppEnv>().get("/chats/:chat_id/events", async (c) => {
  const chatId = chatIdParam(c);
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
    const status = c.req.query("status");
    if (status !== "failed") {
      throw badRequest("invalid_status", "Use `?status=failed` to list undelivered events, or open a WebSocket for the live stream.");
    }
    const answer = await chatStub(c, chatId).failedEvents();
    if (answer === null) throw chatNotFound(chatId);
    return c.json(answer);
  }
  throw new ApiError(501, "not_implemented", "The live event stream is not available yet.");
});
