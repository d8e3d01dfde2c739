/**
 * A live event stream over hibernatable WebSockets (docs/api.md#live-streams), for the chat
 * stream and the tenant-wide one: the object accepts the socket, replays what
 * the client missed since its cursor, then broadcasts as events happen. Pings
 * are answered by the runtime's auto-response, without waking the object.
 */

/** What a stream replays from: its kept messages, by cursor. */
export interface StreamLog {
  /** The oldest cursor still kept, if any. */
  oldest(): number | undefined;
  /** The last cursor ever given out (0 before the first). */
  latest(): number;
  /** Messages after `cursor`, oldest first. */
  after(cursor: number, limit: number): string[];
}

export const REPLAY_LIMIT = 1000;

/** The tag of a live stream's sockets: an object may hold other sockets (a chat, its waiting requests'). */
export const STREAM_TAG = "stream";

/** What a chat hands the tenant stream: an envelope to keep, or a live-only one (`{live}`) to send and forget. */
export type StreamMessage = string | { live: string };

/**
 * Where a resuming client can pick up: after its cursor, unless messages it
 * has not seen are gone (purged, never stored, or more than one replay holds);
 * then it is told `cursor.expired` and gets the newest messages kept.
 */
export function resumeFrom(after: number, log: StreamLog, mayHaveGap = false): { expired: boolean; from: number } {
  const latest = log.latest();
  if (after >= latest) return { expired: mayHaveGap, from: after };
  const oldest = log.oldest();
  const from = Math.max(after, latest - REPLAY_LIMIT, oldest === undefined ? latest : oldest - 1);
  return { expired: mayHaveGap || from > after, from };
}

/** Accepts the upgrade; with `after`, first sends what came since (or `cursor.expired` when some of that is gone). */
export function acceptStream(
  ctx: DurableObjectState,
  after: number | null,
  log: StreamLog,
  mayHaveGap = false,
): Response {
  const { 0: client, 1: server } = new WebSocketPair();
  ctx.acceptWebSocket(server, [STREAM_TAG]);
  ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  if (after !== null) {
    const { expired, from } = resumeFrom(after, log, mayHaveGap);
    const messages = log.after(from, REPLAY_LIMIT);
    if (expired) server.send(JSON.stringify({ type: "cursor.expired", oldest: from + 1 }));
    for (const message of messages) server.send(message);
  }
  return new Response(null, { status: 101, webSocket: client });
}

export function broadcast(ctx: DurableObjectState, message: string): void {
  for (const socket of ctx.getWebSockets(STREAM_TAG)) {
    try {
      socket.send(message);
    } catch {
      // A socket closing meanwhile: its close handler tidies up.
    }
  }
}

/**
 * The code to answer a client's close with. 1005, 1006 and 1015 only describe
 * a close (none given, connection dropped, TLS failure) and may never be sent:
 * echoing them throws, so those are answered with a normal close.
 */
export function echoCloseCode(code: number): number {
  const sendable =
    code === 1000 || (code >= 1001 && code <= 1014 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
  return sendable ? code : 1000;
}

/** Completes the close handshake a client started; a socket already gone needs nothing. */
export function answerClose(ws: WebSocket, code: number, reason: string): void {
  try {
    ws.close(echoCloseCode(code), reason);
  } catch {
    // Already closed by the runtime.
  }
}

/** `?after=` as a cursor: a non-negative integer, or null when absent. */
export function parseCursor(raw: string | null): number | null | "invalid" {
  if (raw === null) return null;
  return /^\d{1,15}$/.test(raw) ? Number(raw) : "invalid";
}
