/**
 * Where a chat's events go live (docs/api.md#live-streams): its own WebSocket clients (the
 * chat stream, resumable by `data.seq`), and the tenant-wide stream while
 * that has listeners. Whether it does is remembered in the chat's meta: the
 * tenant says so when a chat registers, when a dashboard connects, and in
 * every publish answer; a chat that believes nobody listens still probes
 * once per 30 s, so it never stays silent for long by mistake. Events recorded
 * while a probe is on its way wait for its answer rather than being dropped: a
 * new chat's first events (`chat.created`, then its first `job.*`) reach a stream
 * that opened before the chat existed. A new chat's index entry is its probe, and
 * carries the events recorded before it leaves. Live-only events (`job.progress`)
 * are sent the same way but kept nowhere.
 */
import { acceptStream, broadcast, STREAM_TAG, type StreamLog, type StreamMessage } from "../../shared/live-stream";
import type { ChatStore } from "../storage/chat-store";
import { readMeta, writeMeta } from "../storage/schema";

const PROBE_MS = 30_000;

export class ChatStream implements StreamLog {
  #unsent: StreamMessage[] = [];
  #sending = false;
  /**
   * A new chat's events wait for its index entry, which carries them to the tenant and answers whether anyone
   * listens.
   */
  #awaitingEntry = false;

  constructor(private readonly store: ChatStore) {}

  /** A new stream, if the tenant has room for one more (`limits.max_streams`); else the 429 answer. */
  async accept(after: number | null): Promise<Response> {
    const { tenant, chat_id } = this.store.address();
    const refused = await this.store.tenant().admitChatStream(tenant, chat_id, this.open());
    if (refused) return Response.json(refused, { status: 429 });
    return acceptStream(this.store.ctx, after, this);
  }

  /** The streams this chat has open. */
  open(): number {
    return this.store.ctx.getWebSockets(STREAM_TAG).filter((ws) => ws.readyState === WebSocket.OPEN).length;
  }

  /** A stream closed: the tenant counts what this chat has left (best effort: it asks again when it looks full). */
  async closed(): Promise<void> {
    try {
      await this.store.tenant().chatStreams(this.store.address().chat_id, this.open());
    } catch (e) {
      console.warn("stream count update failed; the tenant recounts when full", (e as Error).message);
    }
  }

  oldest(): number | undefined {
    return this.store.events.oldestSeq(Date.now());
  }

  latest(): number {
    return this.store.events.latestSeq();
  }

  after(cursor: number, limit: number): string[] {
    return this.store.events.after(cursor, limit, Date.now()).map((e) => e.body);
  }

  /** An event was recorded: to this chat's sockets now, to the tenant stream if anyone may listen. */
  publish(envelope: string, now: number): void {
    broadcast(this.store.ctx, envelope);
    if (this.#awaitingEntry) {
      this.#unsent.push(envelope);
      return;
    }
    if (readMeta(this.store.sql, "tenant_listening") !== "1" && !this.#sending) {
      if (now - Number(readMeta(this.store.sql, "tenant_probe_at") ?? 0) < PROBE_MS) return;
      writeMeta(this.store.sql, "tenant_probe_at", String(now));
    }
    this.#unsent.push(envelope);
    if (!this.#sending) this.store.ctx.waitUntil(this.#send());
  }

  /**
   * A live-only event (`job.progress`): to this chat's sockets, and to the tenant stream only
   * while it is known to listen. It never probes: that writes a row, and the next kept event will.
   */
  publishLive(envelope: string): void {
    broadcast(this.store.ctx, envelope);
    if (readMeta(this.store.sql, "tenant_listening") !== "1") return;
    this.#unsent.push({ live: envelope });
    if (!this.#sending) this.store.ctx.waitUntil(this.#send());
  }

  setListening(listening: boolean): void {
    writeMeta(this.store.sql, "tenant_listening", listening ? "1" : "0");
  }

  /** A new chat (inside its first transaction): its events go with its index entry, one request instead of two. */
  awaitEntry(): void {
    this.#awaitingEntry = true;
  }

  /** The events the index entry carries. */
  takeForEntry(): StreamMessage[] {
    return this.#awaitingEntry ? this.#unsent.splice(0) : [];
  }

  /**
   * The entry's answer, which counts as a probe; what was recorded meanwhile goes where someone
   * listens. Without an answer (the entry failed) the events it carried go the usual way.
   */
  entryAnswered(now: number, answer: { listening: boolean } | { failed: StreamMessage[] }): void {
    if (!this.#awaitingEntry) return;
    this.#awaitingEntry = false;
    if ("failed" in answer) this.#unsent.unshift(...answer.failed);
    else {
      this.setListening(answer.listening);
      writeMeta(this.store.sql, "tenant_probe_at", String(now));
      if (!answer.listening) this.#unsent.length = 0;
    }
    if (this.#unsent.length && !this.#sending) this.store.ctx.waitUntil(this.#send());
  }

  /** One RPC at a time, in order; events recorded meanwhile go in the next. */
  async #send(): Promise<void> {
    this.#sending = true;
    try {
      while (this.#unsent.length) {
        const batch = this.#unsent.splice(0, this.#unsent.length);
        try {
          const { listening } = await this.store.tenant().publish(batch);
          this.setListening(listening);
          // What waited for this answer goes only where someone listens.
          if (!listening) this.#unsent.length = 0;
        } catch (e) {
          // The live view is best effort: a dashboard reloads state when it reconnects.
          console.warn("tenant stream publish failed", (e as Error).message);
        }
      }
    } finally {
      this.#sending = false;
    }
  }
}
