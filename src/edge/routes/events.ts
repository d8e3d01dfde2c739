/**
 * Events (docs/api.md#live-streams): the live streams over WebSockets (a chat's, and the
 * tenant-wide one the dashboard watches), and the tickets browsers open them
 * with. A chat's events path without an upgrade lists its webhook deliveries.
 */
import { Hono, type Context } from "hono";
import { z } from "zod";
import type { AppEnv } from "../auth/app-env";
import { ticketRequest } from "../../core/api/events";
import { TICKET_TTL_SECONDS } from "../../core/auth/tickets";
import { quoteName } from "../../core/calls/names";
import { ApiError, badRequest } from "../../core/http/errors";
import { readJsonBody } from "../../core/http/json-body";
import { isValidChatId } from "../../core/objects/names";
import { chatIdParam, chatNotFound, chatStub, tenantStub } from "../requests/context";
import { DELIVERY_STATUSES } from "../../core/webhooks/deliveries";

const isUpgrade = (c: Context<AppEnv>) => c.req.header("upgrade")?.toLowerCase() === "websocket";

const upgradeRequired = () =>
  new ApiError(
    426,
    "upgrade_required",
    "This is a WebSocket stream: connect with `Upgrade: websocket` (browsers: `?ticket=` from POST /v1/ws-tickets).",
  );

/** `?after=` resumes a stream after that cursor. */
function checkCursor(c: Context<AppEnv>): void {
  const after = c.req.query("after");
  if (after !== undefined && !/^\d{1,15}$/.test(after))
    throw badRequest(
      "invalid_cursor",
      "`after` must be a non-negative integer: the last `seq` (chat stream) or `cursor` (tenant stream) you received.",
    );
}

const statusQuery = z.enum(DELIVERY_STATUSES);

/**
 * `GET /v1/chats/{chat}/events?status=pending|delivered|failed`: the chat's kept events with a webhook target
 * in that state.
 */
async function listDeliveries(c: Context<AppEnv>, chatId: string): Promise<Response> {
  const status = statusQuery.safeParse(c.req.query("status"));
  if (!status.success) {
    throw badRequest(
      "invalid_status",
      "Use `?status=pending`, `delivered` or `failed` to list webhook deliveries, or open a WebSocket for the live stream.",
    );
  }
  const answer = await chatStub(c, chatId).deliveries(status.data);
  if (answer === null) throw chatNotFound(chatId);
  return c.json(answer);
}

export const eventRoutes = new Hono<AppEnv>()
  .post("/ws-tickets", async (c) => {
    if (c.get("ticket")) throw new ApiError(403, "forbidden", "A ticket cannot buy another ticket.");
    const empty = !c.req.raw.body || c.req.header("content-length") === "0";
    const raw = empty ? {} : await readJsonBody(c.req.raw, 4096);
    const parsed = ticketRequest.strict().safeParse(raw);
    if (!parsed.success) throw badRequest("invalid_ticket_request", 'Body must be {} or {"chat_id": "<chat>"}.');
    const chatId = parsed.data.chat_id ?? null;
    if (chatId !== null && !isValidChatId(chatId))
      throw badRequest(
        "invalid_chat_id",
        "chat_id must be 1-128 characters of A-Z a-z 0-9 . _ : @ ! - and not only dots.",
      );
    const issued = await tenantStub(c).issueTicket(c.get("tenant"), chatId);
    if ("refused" in issued) return c.json(issued.refused, 429);
    return c.json({ ticket: issued.ticket, expires_in: TICKET_TTL_SECONDS });
  })
  .get("/events", async (c) => {
    if (!isUpgrade(c)) throw upgradeRequired();
    const scope = c.get("ticket");
    if (scope && scope.chat_id !== null)
      throw new ApiError(403, "forbidden", `This ticket is for chat '${quoteName(scope.chat_id)}' only.`);
    checkCursor(c);
    const url = new URL(c.req.url);
    url.searchParams.delete("ticket");
    url.searchParams.set("tenant", c.get("tenant"));
    return tenantStub(c).fetch(new Request(url, c.req.raw));
  })
  .get("/chats/:chat_id/events", async (c) => {
    const chatId = chatIdParam(c);
    if (!isUpgrade(c)) return listDeliveries(c, chatId);
    const scope = c.get("ticket");
    if (scope && scope.chat_id !== null && scope.chat_id !== chatId)
      throw new ApiError(403, "forbidden", `This ticket is for chat '${quoteName(scope.chat_id)}' only.`);
    checkCursor(c);
    return chatStub(c, chatId).fetch(c.req.raw);
  });
