/**
 * Delivers the chat's pending events to their webhook (SPEC §6), and its
 * Telegram notifications (SPEC §5.5), at least once. Driven by the `deliver` timer and run beside the alarm (an attempt
 * may take 10 s; deadlines must not wait for it); the timer is pushed out
 * first, so an instance lost mid-run is simply driven again.
 */
import { afterAttempt } from "../../src/webhooks/delivery-rules";
import { sendWebhook, type WebhookTarget } from "../../src/webhooks/send";
import { sendTelegram, type TelegramTarget } from "../../src/notify/telegram";
import type { Notification, Notifications } from "./notifications";
import { forEachLimited, MAX_OPEN_CONNECTIONS } from "../../src/util/limited";
import type { Events, OutboxEvent } from "./events";
import type { Timers } from "./timers";

/** If a run's instance dies, the `deliver` timer re-drives it after this. */
export const DELIVERY_SAFETY_MS = 60_000;
const BATCH = 20;

export interface OutboxDeps {
  ctx: DurableObjectState;
  events: Events;
  notifications: Notifications;
  timers: Timers;
  webhook(): Promise<WebhookTarget | null>;
  telegram(): Promise<TelegramTarget | null>;
  disableWebhook(version: number): Promise<void>;
  /** An event reached its receiver (a delivered `batch.finished` collects its jobs). */
  delivered(event: OutboxEvent, now: number): void;
  /** A run ended with its events settled or scheduled: retention may count again. */
  ranDry(now: number): void;
}

export class Outbox {
  #running = false;

  constructor(private readonly d: OutboxDeps) {}

  /** An event was recorded for delivery: the alarm picks it up at once. */
  wake(now: number): void {
    this.d.timers.set("deliver", "", now);
  }

  async drive(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      for (;;) {
        const now = Date.now();
        const events = this.d.events.due(now, BATCH);
        const notes = this.d.notifications.due(now, BATCH);
        if (events.length === 0 && notes.length === 0) break;
        const [webhook, telegram] = await Promise.all([
          events.length ? this.d.webhook() : null,
          notes.length ? this.d.telegram() : null,
        ]);
        const work = [...events.map((e) => () => this.#attempt(e, webhook)), ...notes.map((n) => () => this.#notify(n, telegram))];
        await forEachLimited(work, MAX_OPEN_CONNECTIONS, (send) => send());
      }
    } catch (e) {
      console.error("webhook delivery run failed; the deliver timer retries", e);
    } finally {
      this.#running = false;
      this.d.ranDry(Date.now());
      const next = Math.min(this.d.events.nextDue() ?? Infinity, this.d.notifications.nextDue() ?? Infinity);
      if (next === Infinity) this.d.timers.clear("deliver", "");
      else this.d.timers.set("deliver", "", next);
      await this.d.timers.arm();
    }
  }

  async #attempt(event: OutboxEvent, webhook: WebhookTarget | null): Promise<void> {
    const url = event.callback_url ?? webhook?.url;
    // A callback_url is only accepted while a webhook is configured; its secret signs both.
    if (!url || !webhook) return this.d.events.undeliverable(event.seq);
    if (webhook.disabled && !event.callback_url) {
      return this.d.events.failed(event.seq, 410, "The webhook is disabled after a 410 Gone; PUT /v1/config to enable it again.", Date.now(), false);
    }
    const { status, error } = await sendWebhook(url, webhook.secret, event, new AbortController().signal);
    const now = Date.now();
    const outcome = afterAttempt(status, event.attempts + 1, now);
    switch (outcome.kind) {
      case "delivered":
        this.d.ctx.storage.transactionSync(() => {
          this.d.events.delivered(event.seq, status!);
          this.d.delivered(event, now);
        });
        return;
      case "retry":
        return this.d.events.retry(event.seq, status, error, outcome.at);
      case "disable":
        this.d.events.failed(event.seq, status, outcome.reason, now);
        if (!event.callback_url) await this.d.disableWebhook(webhook.version);
        return;
      case "failed":
        return this.d.events.failed(event.seq, status, status === null ? `${outcome.reason} Last error: ${error}` : outcome.reason, now);
    }
  }

  async #notify(note: Notification, telegram: TelegramTarget | null): Promise<void> {
    if (!telegram) return this.d.notifications.settle(note.id, { failed: "Telegram is no longer configured (telegram.bot_token)." });
    const chatId = JSON.parse(note.telegram_chat_id) as string | number;
    const { status, error } = await sendTelegram(telegram, chatId, note.text, new AbortController().signal);
    const outcome = afterAttempt(status, note.attempts + 1, Date.now());
    if (outcome.kind === "delivered") return this.d.notifications.settle(note.id, { sent: true });
    if (outcome.kind === "retry") return this.d.notifications.settle(note.id, { retryAt: outcome.at, error });
    this.d.notifications.settle(note.id, { failed: error || outcome.reason });
  }
}
