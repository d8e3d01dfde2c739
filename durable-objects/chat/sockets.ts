/**
 * The chat object's WebSockets: its live stream and a waiting request's socket (`/await`,
 * docs/architecture.md#awaits) share the object's one `fetch` and its hibernation handlers, told
 * apart by path when they open and by tag when they end. Here rather than in `./ChatDO`, which
 * keeps only the runtime's entry points, so that file stays the RPC surface.
 */
import { AWAIT_PATH } from "../../src/core/jobs/messages";
import { answerClose, parseCursor } from "../shared/live-stream";
import type { Chat } from "./chat";
import { acceptWaiter, AWAIT_TAG } from "./jobs/waiters";

/** The authenticated upgrade the worker forwards: a chat that does not exist (or is being deleted) is a 404. */
export async function openSocket(ctx: DurableObjectState, chat: Chat, request: Request): Promise<Response> {
  if (!chat.store.readable())
    return Response.json(
      { status: "error", error: { code: "chat_not_found", message: "No such chat." } },
      { status: 404 },
    );
  const url = new URL(request.url);
  if (url.pathname === AWAIT_PATH) return acceptWaiter(ctx, chat.waiters, url);
  const after = parseCursor(new URL(request.url).searchParams.get("after"));
  return chat.stream.accept(after === "invalid" ? null : after);
}

/** A waiter's socket needs nothing when it ends; the live stream recounts its listeners. */
export async function socketClosed(
  ctx: DurableObjectState,
  chat: Chat,
  ws: WebSocket,
  code: number,
  reason: string,
): Promise<void> {
  answerClose(ws, code, reason);
  if (!ctx.getTags(ws).includes(AWAIT_TAG)) await chat.stream.closed();
}

export async function socketErrored(ctx: DurableObjectState, chat: Chat, ws: WebSocket): Promise<void> {
  if (!ctx.getTags(ws).includes(AWAIT_TAG)) await chat.stream.closed();
}
