/**
 * A live event stream that outlives its connections: each connection opens
 * with a fresh single-use ticket and `?after=` the last event handed out, so a
 * dropped socket (a deploy, a network change, Cloudflare's idle cut) loses and
 * repeats nothing. Iterate it with `for await`; `close()` or the signal ends it.
 */
import type { CursorExpired, FanoutEvent, TenantStreamEvent } from "./types.js";

export interface StreamOptions {
  /** Resume after this `seq` (chat stream) or `cursor` (tenant stream). */
  after?: number;
  signal?: AbortSignal;
}

/** What a stream yields: events, and `cursor.expired` when some it missed are gone for good. */
export type StreamMessage = FanoutEvent | TenantStreamEvent | CursorExpired;

/** Keeps a quiet socket alive (Cloudflare closes idle WebSockets); answered without waking the object. */
const PING_MS = 30_000;
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 10_000;

export class EventStream implements AsyncIterable<StreamMessage> {
  #after: number | undefined;
  #socket: WebSocket | undefined;
  #closed = false;
  /** Whether a connection ever opened: until then every event is new to this stream. */
  #opened = false;
  #failures = 0;
  readonly #queue: StreamMessage[] = [];
  #wake: (() => void) | undefined;
  #error: unknown;

  constructor(
    private readonly url: URL,
    /** Where the resume position is read: `data.seq` (chat stream) or `cursor` (tenant stream). */
    private readonly position: "seq" | "cursor",
    private readonly ticket: () => Promise<string>,
    /** The WebSocket to open connections with: found once, when the first one opens. */
    private readonly WebSocketClass: () => Promise<typeof WebSocket>,
    options: StreamOptions,
  ) {
    this.#after = options.after;
    options.signal?.addEventListener("abort", () => this.close(), { once: true });
    if (options.signal?.aborted) this.#closed = true;
    else void this.#connect();
  }

  /** The position the stream would resume after: the last event handed out. */
  get after(): number | undefined {
    return this.#after;
  }

  close(): void {
    this.#closed = true;
    this.#socket?.close(1000, "closed by the client");
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamMessage> {
    try {
      for (;;) {
        const next = this.#queue.shift();
        if (next) {
          this.#advance(next);
          yield next;
          continue;
        }
        if (this.#error) throw this.#error;
        if (this.#closed) return;
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      this.close();
    }
  }

  #advance(message: StreamMessage): void {
    if (message.type === "cursor.expired") return;
    const at = this.position === "cursor" ? (message as TenantStreamEvent).cursor : message.data.seq;
    if (typeof at === "number") this.#after = at;
  }

  async #connect(): Promise<void> {
    let socket: WebSocket;
    let WebSocketClass: typeof WebSocket;
    try {
      WebSocketClass = await this.WebSocketClass();
    } catch (e) {
      return this.#fail(e); // no WebSocket at all: retrying will not make one
    }
    try {
      const url = new URL(this.url);
      url.searchParams.set("ticket", await this.ticket());
      // Resume after the last event queued, handed out or not: those are not asked for twice. A
      // chat that did not exist yet (its stream answers 404) is read from its start once it does.
      const after = this.#lastQueued() ?? this.#after ?? (this.#failures > 0 && !this.#opened ? 0 : undefined);
      if (after !== undefined) url.searchParams.set("after", String(after));
      if (this.#closed) return;
      socket = new WebSocketClass(url);
    } catch (e) {
      // A refusal (a revoked key, a deleted tenant) will not mend by retrying.
      if ((e as { retryable?: boolean }).retryable === false) return this.#fail(e);
      return this.#retry();
    }
    this.#socket = socket;
    const ping = setInterval(() => socket.readyState === 1 /* open, in every runtime's numbering */ && socket.send("ping"), PING_MS);
    socket.addEventListener("open", () => {
      this.#opened = true;
      this.#failures = 0;
    });
    socket.addEventListener("message", (m) => {
      if (typeof m.data !== "string" || m.data === "pong") return;
      this.#queue.push(JSON.parse(m.data) as StreamMessage);
      this.#wake?.();
    });
    // A refused handshake fires only `error` in some runtimes (Node's), a dropped socket `close`, often both.
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(ping);
      try {
        socket.close();
      } catch {
        // never opened
      }
      if (this.#socket === socket) this.#socket = undefined;
      if (!this.#closed) void this.#retry();
    };
    socket.addEventListener("error", end);
    socket.addEventListener("close", end);
  }

  #lastQueued(): number | undefined {
    for (let i = this.#queue.length - 1; i >= 0; i--) {
      const m = this.#queue[i]!;
      if (m.type !== "cursor.expired") return this.position === "cursor" ? (m as TenantStreamEvent).cursor : m.data.seq;
    }
    return undefined;
  }

  async #retry(): Promise<void> {
    const ceiling = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** this.#failures++);
    await new Promise((r) => setTimeout(r, ceiling / 2 + (Math.random() * ceiling) / 2));
    if (!this.#closed) await this.#connect();
  }

  #fail(error: unknown): void {
    this.#error = error;
    this.#closed = true;
    this.#wake?.();
  }
}
