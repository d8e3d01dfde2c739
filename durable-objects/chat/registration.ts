/**
 * The chat's entry in the tenant's index (what `GET /v1/chats` lists), and
 * the chat's return to no storage. The entry is written beside a new chat's
 * first answer and retried by the `register` timer until it lands; a deletion
 * or a purge waits for a write in flight, so the index never keeps a chat
 * that is gone.
 */
import { tenantName } from "../../src/core/objects/names";
import type { ChatStream } from "./events/chat-stream";
import { DISPATCH_WATCHDOG_MS } from "./jobs/batch-rows";
import type { ChatStore } from "./storage/chat-store";
import { forgetCached } from "./storage/sql-cache";

/**
 * A new chat's entry in the tenant's index is retried this often until it lands. As long as a batch's
 * dispatch watchdog, and set with the same `now` at admission: once the entry lands and its timer goes,
 * the watchdog keeps the alarm where it was, and no `setAlarm()` (billed as a row written, and a write
 * on the chat's thread) moves it 5 s later.
 */
export const REGISTER_RETRY_MS = DISPATCH_WATCHDOG_MS;

export class Registration {
  /** The entry being written, if any: a deletion waits for it. */
  #registering: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: ChatStore,
    private readonly stream: ChatStream,
  ) {}

  /**
   * A new chat (inside its first transaction, before its first event): the alarm retries its entry
   * until `register` clears this, and its events wait to go with the entry.
   */
  owed(now: number): void {
    this.store.timers.set("register", "", now + REGISTER_RETRY_MS);
    this.stream.awaitEntry();
  }

  /** Writes the entry (a child under its parent); false, and the `register` timer stays, if that failed. */
  register(now: number): Promise<boolean> {
    const written = this.#register(now);
    this.#registering = written;
    return written;
  }

  /** Settles once no entry is being written. */
  settled(): Promise<unknown> {
    return this.#registering;
  }

  async #register(now: number): Promise<boolean> {
    const { chat_id } = this.store.address();
    const parent = this.store.meta("parent_chat_id") ?? null;
    const name = this.store.meta("name") ?? chat_id;
    const events = this.stream.takeForEntry();
    try {
      const answer = await this.store.tenant().registerChat(chat_id, now, parent, this.store.level(), name, events);
      if (!this.store.exists()) return true; // deleted meanwhile
      this.stream.entryAnswered(Date.now(), answer);
      this.stream.setListening(answer.listening);
      this.store.timers.clear("register", "");
      await this.store.timers.arm();
      return true;
    } catch (e) {
      this.stream.entryAnswered(Date.now(), { failed: events });
      console.warn("chat index update failed; the alarm retries it", (e as Error).message);
      return false;
    }
  }

  /** Retention found the chat empty: it returns to no storage and leaves the index. */
  async forget(): Promise<void> {
    const { tenant, chat_id } = this.store.address();
    await this.wipe();
    if (tenant && chat_id) await this.store.env().TENANT.getByName(tenantName(tenant)).forgetChat(chat_id);
  }

  /** The chat's storage and alarm go, once no index write is in flight. */
  async wipe(): Promise<void> {
    await this.#registering;
    this.store.timers.forgetAlarm(); // first: a deleteAll that fails must not leave a note of an alarm that is gone
    await this.store.ctx.storage.deleteAlarm();
    await this.store.ctx.storage.deleteAll();
    forgetCached(this.store.sql);
  }
}
