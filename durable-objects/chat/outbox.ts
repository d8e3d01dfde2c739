/**
 * Delivers the chat's pending events to their webhook (SPEC §6), and its
 * Telegram notifications (SPEC §5.5), at least once. Driven by the `deliver`
 * timer and run beside the alarm (an attempt may take 10 s; deadlines must
 * not wait for it). At most four attempts are in flight; each one that ends
 * starts the next due item, so a receiver that hangs holds one lane, never the
 * events behind it. The alarm pushes the timer out first, so an instance lost
 * mid-run is simply driven again.
 */
import { refusal, type Refusal } from "../../src/http/errors";
import { deliveryEntry, redeliveryRefusal, type DeliveryEntry, type DeliveryRow } from "../../src/webhooks/deliveries";
import { afterAttempt } from "../../src/webhooks/delivery-rules";
import { sendWebhook, type WebhookTarget } from "../../src/webhooks/send";
import { sendTelegram, type TelegramTarget } from "../../src/notify/telegram";
import type { Notification, Notifications } from "./notifications";
import { MAX_OPEN_CONNECTIONS } from "../../src/util/limited";
import type { Events, OutboxEvent } from "./events";
import type { Timers } from "./timers";

/** If a run's instance dies, the `deliver` timer re-drives it after this. */
export const DELIVERY_SAFETY_MS = 60_000;
/** Where to deliver is read from the TenantDO at most this often, not once per event. */
const TARGETS_TTL_MS = 5_000;
/** After an attempt could not even run (the TenantDO unreachable, say), wait this long before the next. */
const PAUSE_AFTER_FAILURE_MS = 10_000;

export interface OutboxDeps {
  ctx: DurableObjectState;
  events: Events;
  notifications: Notifications;
  timers: Timers;
  webhook(): Promise<WebhookTarget | null>;
  telegram(): Promise<TelegramTarget | null>;
  /** ALLOW_PRIVATE_EGRESS, read at each send: the egress rules apply to every attempt. */
  allowPrivateEgress(): boolean;
  disableWebhook(version: number): Promise<void>;
  /** An event reached its receiver (a delivered `batch.finished` collects its jobs). */
  delivered(event: OutboxEvent, now: number): void;
  /** Nothing is in flight any more: retention may count again. */
  ranDry(now: number): void;
}

export type Redelivery = { ok: true; delivery: DeliveryEntry } | Refusal;

type Targets = { at: number; webhook: Promise<WebhookTarget | null>; telegram: Promise<TelegramTarget | null> };

export class Outbox {
  readonly #inFlight = new Set<string>();
  #targets: Targets | undefined;
  #pausedUntil = 0;

  constructor(private readonly d: OutboxDeps) {}

  /** An event was recorded for delivery: the alarm picks it up at once. */
  wake(now: number): void {
    this.d.timers.set("deliver", "", now);
  }

  /** Sends a settled event again (SPEC §6): back in the outbox, due now, driven by the alarm like any other. */
  async redeliver(eventId: string, chatId: string, webhookConfigured: boolean): Promise<Redelivery> {
    const row = this.d.events.delivery(eventId);
    const refused = redeliveryRefusal(row, chatId, eventId, webhookConfigured);
    if (refused) return refusal(refused);
    const now = Date.now();
    this.d.events.redeliver(row!.seq, now);
    // Read before the await: by the time the alarm is armed, the outbox may have sent it already.
    const delivery = deliveryEntry(this.d.events.delivery(eventId) as DeliveryRow & { status: "pending" });
    this.wake(now);
    await this.d.timers.arm();
    return { ok: true, delivery };
  }

  /** Starts attempts for what is due, up to the lanes free; resolves when those (and what they start) end. */
  async drive(): Promise<void> {
    const now = Date.now();
    if (now < this.#pausedUntil) return this.#settled();
    const room = MAX_OPEN_CONNECTIONS - this.#inFlight.size;
    const events = room > 0 ? this.d.events.due(now, MAX_OPEN_CONNECTIONS * 2).filter((e) => !this.#inFlight.has(`e${e.seq}`)) : [];
    const notes = room > 0 ? this.d.notifications.due(now, MAX_OPEN_CONNECTIONS * 2).filter((n) => !this.#inFlight.has(`n${n.id}`)) : [];
    const work: [string, (t: Targets) => Promise<void>][] = [
      ...events.map((e): [string, (t: Targets) => Promise<void>] => [`e${e.seq}`, async (t) => this.#attempt(e, await t.webhook)]),
      ...notes.map((n): [string, (t: Targets) => Promise<void>] => [`n${n.id}`, async (t) => this.#notify(n, await t.telegram)]),
    ].slice(0, Math.max(0, room));
    if (work.length === 0) return this.#settled();
    const targets = this.#targetsAt(now);
    await Promise.all(
      work.map(async ([key, run]) => {
        this.#inFlight.add(key);
        try {
          await run(targets);
        } catch (e) {
          console.error("delivery attempt failed to run; pausing before the next", key, e);
          this.#pausedUntil = Date.now() + PAUSE_AFTER_FAILURE_MS;
        } finally {
          this.#inFlight.delete(key);
        }
        await this.drive();
      }),
    );
  }

  #targetsAt(now: number): Targets {
    if (!this.#targets || now - this.#targets.at > TARGETS_TTL_MS) {
      this.#targets = { at: now, webhook: this.d.webhook(), telegram: this.d.telegram() };
      // A failed lookup is not kept: the next attempt asks again.
      const forget = () => (this.#targets = undefined);
      this.#targets.webhook.catch(forget);
      this.#targets.telegram.catch(forget);
    }
    return this.#targets;
  }

  /** Nothing more to start now: once nothing is in flight either, point the timer at the next retry. */
  async #settled(): Promise<void> {
    if (this.#inFlight.size > 0) return;
    const now = Date.now();
    this.d.ranDry(now);
    const next = Math.max(this.#pausedUntil, Math.min(this.d.events.nextDue() ?? Infinity, this.d.notifications.nextDue() ?? Infinity));
    if (next === Infinity) this.d.timers.clear("deliver", "");
    else this.d.timers.set("deliver", "", next);
    await this.d.timers.arm();
  }

  async #attempt(event: OutboxEvent, webhook: WebhookTarget | null): Promise<void> {
    const url = event.callback_url ?? webhook?.url;
    // A callback_url is only accepted while a webhook is configured; its secret signs both.
    if (!url || !webhook) return this.d.events.undeliverable(event.seq);
    if (webhook.disabled && !event.callback_url) {
      return this.d.events.failed(event.seq, 410, "The webhook is disabled after a 410 Gone; PUT or PATCH /v1/config to enable it again.", Date.now(), false);
    }
    const { status, error, refused } = await sendWebhook(url, webhook.secret, event, new AbortController().signal, this.d.allowPrivateEgress());
    const now = Date.now();
    // Not sent, and sending again cannot help until the configuration changes: fail it, uncounted.
    if (refused) return this.d.events.failed(event.seq, null, error, now, false);
    const outcome = afterAttempt(status, event.attempts + 1, now);
    switch (outcome.kind) {
      case "delivered":
        this.d.ctx.storage.transactionSync(() => {
          this.d.events.delivered(event.seq, status!, now);
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
    const { status, error, refused } = await sendTelegram(telegram, chatId, note.text, new AbortController().signal, this.d.allowPrivateEgress());
    // Not sent, and sending again cannot help until the configuration changes.
    if (refused) return this.d.notifications.settle(note.id, { failed: error });
    const outcome = afterAttempt(status, note.attempts + 1, Date.now());
    if (outcome.kind === "delivered") return this.d.notifications.settle(note.id, { sent: true });
    if (outcome.kind === "retry") return this.d.notifications.settle(note.id, { retryAt: outcome.at, error });
    this.d.notifications.settle(note.id, { failed: error || outcome.reason });
  }
}
