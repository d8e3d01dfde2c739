/**
 * A live event stream that outlives its connections: each connection opens
 * with a fresh single-use ticket and `?after=` the last event handed out, so a
 * dropped socket (a deploy, a network change, Cloudflare's idle cut) loses and
 * repeats nothing. Opening it waits until its position is fixed (its first
 * connection is open, or its chat does not exist yet and so will be read from
 * its start), so nothing that happens after the open is missed. Iterate it
 * with `for await`; `close()` or the signal ends it.
 */
import { FanoutError } from "./errors.js";
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

/** Where a stream's connections go and how they are made (the client's side of it). */
export interface StreamSource {
  url: URL;
  /** Where the resume position is read: `data.seq` (chat stream) or `cursor` (tenant stream). */
  position: "seq" | "cursor";
  ticket(): Promise<string>;
  WebSocket: typeof WebSocket;
  /** Whether the stream's chat exists (undefined: could not tell); none for the tenant stream. */
  chatExists?: () => Promise<boolean | undefined>;
  /** How many connections may fail before the first one opens. */
  attempts: number;
}

export class EventStream implements AsyncIterable<StreamMessage> {
  #after: number | undefined;
  #socket: WebSocket | undefined;
  #closed = false;
  #failures = 0;
  /** Connections that failed before the position was fixed. */
  #openFailures = 0;
  /** Whether events after the open are sure to come: a connection opened, or the chat is read from its start. */
  #fixed = false;
  readonly #ready: Promise<void>;
  #settle!: { resolve(): void; reject(e: unknown): void };
  readonly #queue: StreamMessage[] = [];
  #wake: (() => void) | undefined;
  #error: unknown;

  /** Opens a stream; resolves once its position is fixed, rejects when it cannot open (a refused key, no service). */
  static async open(source: StreamSource, options: StreamOptions = {}): Promise<EventStream> {
    const stream = new EventStream(source, options);
    await stream.#ready;
    return stream;
  }

  private constructor(
    private readonly source: StreamSource,
    options: StreamOptions,
  ) {
    this.#after = options.after;
    this.#ready = new Promise((resolve, reject) => (this.#settle = { resolve, reject }));
    options.signal?.addEventListener("abort", () => this.close(), { once: true });
    if (options.signal?.aborted) this.close();
    else void this.#connect();
  }

  /** The position the stream would resume after: the last event handed out. */
  get after(): number | undefined {
    return this.#after;
  }

  close(): void {
    this.#closed = true;
    this.#socket?.close(1000, "closed by the client");
    this.#settle.resolve(); // an open that is ended first gives a stream that has ended
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
    const at = this.source.position === "cursor" ? (message as TenantStreamEvent).cursor : message.data.seq;
    if (typeof at === "number") this.#after = at;
  }

  async #connect(): Promise<void> {
    let socket: WebSocket;
    try {
      const url = new URL(this.source.url);
      url.searchParams.set("ticket", await this.source.ticket());
      // Resume after the last event queued, handed out or not: those are not asked for twice.
      const after = this.#lastQueued() ?? this.#after;
      if (after !== undefined) url.searchParams.set("after", String(after));
      if (this.#closed) return;
      socket = new this.source.WebSocket(url);
    } catch (e) {
      // A refusal (a revoked key, a deleted tenant) will not mend by retrying.
      if ((e as { retryable?: boolean }).retryable === false) return this.#fail(e);
      return this.#failed(e);
    }
    this.#socket = socket;
    const ping = setInterval(
      () => socket.readyState === 1 /* open, in every runtime's numbering */ && socket.send("ping"),
      PING_MS,
    );
    socket.addEventListener("open", () => {
      this.#failures = 0;
      this.#fix();
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
      if (!this.#closed) void this.#failed();
    };
    socket.addEventListener("error", end);
    socket.addEventListener("close", end);
  }

  /** The position is fixed: every event from here on will come. */
  #fix(): void {
    this.#fixed = true;
    this.#settle.resolve();
  }

  /**
   * A connection did not open, or dropped: try again. Before the position is fixed, a chat that
   * does not exist yet (its stream answers 404) fixes it at its start, and only so many tries are
   * made before the open gives up.
   */
  async #failed(cause?: unknown): Promise<void> {
    if (!this.#fixed) {
      if ((await this.source.chatExists?.()) === false) {
        this.#after ??= 0;
        this.#fix();
      } else if (++this.#openFailures >= this.source.attempts) {
        const why = cause instanceof Error ? `: ${cause.message}` : "";
        return this.#fail(
          new FanoutError(
            0,
            "network_error",
            `fanout's event stream did not open after ${this.#openFailures} tries${why}; check the URL and that the service is up`,
          ),
        );
      }
    }
    if (!this.#closed) await this.#retry();
  }

  #lastQueued(): number | undefined {
    for (let i = this.#queue.length - 1; i >= 0; i--) {
      const m = this.#queue[i]!;
      if (m.type !== "cursor.expired")
        return this.source.position === "cursor" ? (m as TenantStreamEvent).cursor : m.data.seq;
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
    this.#settle.reject(error); // an open still waiting rejects with it; one already settled is left as it is
    this.#wake?.();
  }
}
