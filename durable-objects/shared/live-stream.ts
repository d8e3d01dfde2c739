/**
 * A live event stream over hibernatable WebSockets (SPEC §6), for the chat
 * stream and the tenant-wide one: the object accepts the socket, replays what
 * the client missed since its cursor, then broadcasts as events happen. Pings
 * are answered by the runtime's auto-response, without waking the object.
 */

/** What a stream replays from: its kept messages, by cursor. */
export interface StreamLog {
  /** The oldest cursor still kept, if any. */
  oldest(): number | undefined;
  /** Messages after `cursor`, oldest first. */
  after(cursor: number, limit: number): string[];
}

const REPLAY_LIMIT = 1000;

/** Accepts the upgrade; with `after`, first sends what came since (or `cursor.expired` when that is gone). */
export function acceptStream(ctx: DurableObjectState, after: number | null, log: StreamLog): Response {
  const { 0: client, 1: server } = new WebSocketPair();
  ctx.acceptWebSocket(server);
  ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  if (after !== null) {
    const oldest = log.oldest();
    // Something between the cursor and the oldest kept message was purged: the client must reload.
    if (oldest !== undefined && after < oldest - 1) server.send(JSON.stringify({ type: "cursor.expired", oldest }));
    for (const message of log.after(after, REPLAY_LIMIT)) server.send(message);
  }
  return new Response(null, { status: 101, webSocket: client });
}

export function broadcast(ctx: DurableObjectState, message: string): void {
  for (const socket of ctx.getWebSockets()) {
    try {
      socket.send(message);
    } catch {
      // A socket closing meanwhile: its close handler tidies up.
    }
  }
}

/** `?after=` as a cursor: a non-negative integer, or null when absent. */
export function parseCursor(raw: string | null): number | null | "invalid" {
  if (raw === null) return null;
  return /^\d{1,15}$/.test(raw) ? Number(raw) : "invalid";
}
