/**
 * Delivers the chat's pending events to their webhook (docs/api.md#events-and-webhooks), and its
 * Telegram notifications (docs/api.md#hand-back-and-im-delivery), at least once. Driven by the `deliver`
 * timer and run beside the alarm (an attempt may take 10 s; deadlines must
 * not wait for it). At most four attempts are in flight; each one that ends
 * starts the next due item, so a receiver that hangs holds one lane, never the
 * events behind it. The alarm pushes the timer out first, so an instance lost
 * mid-run is simply driven again.
 */
import { refusal, type Refusal } from "../../../src/core/http/errors";
import {
  deliveryEntry,
  redeliveryRefusal,
  type DeliveryEntry,
  type DeliveryRow,
} from "../../../src/core/webhooks/deliveries";
import { afterAttempt } from "../../../src/core/webhooks/delivery-rules";
import { sendWebhook, type WebhookTarget } from "../../../src/core/webhooks/send";
import { sendTelegram, type TelegramTarget } from "../../../src/core/notify/telegram";
import type { Notification } from "../storage/notifications";
import { CALLS_PER_OBJECT } from "../../../src/core/tools/call-meter";

/**
 * Deliveries waiting at once. Production lets an object wait on 6 connections; the chat keeps
 * `CALLS_PER_OBJECT` of them for its other outbound requests (hand-overs to runners, its flow and
 * budget objects, child chats), deliveries the rest.
 */
export const DELIVERIES_AT_ONCE = 6 - CALLS_PER_OBJECT;
import type { OutboxEvent } from "../storage/events";
import type { ChatStore } from "../storage/chat-store";

/** If a run's instance dies, the `deliver` timer re-drives it after this. */
export const DELIVERY_SAFETY_MS = 60_000;
/** Where to deliver is read from the TenantDO at most this often, not once per event. */
const TARGETS_TTL_MS = 5_000;
/** After an attempt could not even run (the TenantDO unreachable, say), wait this long before the next. */
const PAUSE_AFTER_FAILURE_MS = 10_000;

export type Redelivery = { ok: true; delivery: DeliveryEntry } | Refusal;

type Targets = { at: number; webhook: Promise<WebhookTarget | null>; telegram: Promise<TelegramTarget | null> };

export class Outbox {
  readonly #inFlight = new Set<string>();
  /** Events redelivered while their attempt was out: sent again at once if that attempt does not deliver. */
  readonly #redeliverAfter = new Map<number, string>();
  #targets: Targets | undefined;
  #pausedUntil = 0;

  constructor(private readonly store: ChatStore) {}

  /** An event was recorded for delivery: the alarm picks it up at once. */
  wake(now: number): void {
    this.store.timers.set("deliver", "", now);
  }

  /**
   * Sends an event again, or a pending one now (docs/api.md#deliveries-redelivery-and-a-test-event):
   * back in the outbox with a fresh schedule, due now, driven by the alarm like any other. One whose
   * attempt is out at this moment is left to it, that attempt being the "now"; if it does not
   * deliver, the fresh schedule starts when it ends. (Kept in memory: an eviction mid-attempt
   * leaves the event on its own schedule, still pending, never lost.)
   */
  async redeliver(eventId: string, chatId: string, webhookConfigured: boolean): Promise<Redelivery> {
    const row = this.store.events.delivery(eventId);
    const refused = redeliveryRefusal(row, chatId, eventId, webhookConfigured);
    if (refused) return refusal(refused);
    const now = Date.now();
    if (this.#inFlight.has(`e${row!.seq}`)) this.#redeliverAfter.set(row!.seq, eventId);
    else this.store.events.redeliver(row!.seq, now);
    // Read before the await: by the time the alarm is armed, the outbox may have sent it already.
    const delivery = deliveryEntry(this.store.events.delivery(eventId) as DeliveryRow & { status: "pending" });
    this.wake(now);
    await this.store.timers.arm();
    return { ok: true, delivery };
  }

  /** The `deliver` timer: drive beside the alarm; if this instance dies, the timer fires again. */
  onDeliverTimer(now: number): void {
    this.store.timers.set("deliver", "", now + DELIVERY_SAFETY_MS);
    this.store.ctx.waitUntil(this.drive());
  }

  /** Starts attempts for what is due, as many as there is room for; resolves when those (and what they start) end. */
  async drive(): Promise<void> {
    const now = Date.now();
    if (now < this.#pausedUntil) return this.#settled();
    const room = DELIVERIES_AT_ONCE - this.#inFlight.size;
    const events =
      room > 0
        ? this.store.events.due(now, DELIVERIES_AT_ONCE * 4).filter((e) => !this.#inFlight.has(`e${e.seq}`))
        : [];
    const notes =
      room > 0
        ? this.store.notifications.due(now, DELIVERIES_AT_ONCE * 4).filter((n) => !this.#inFlight.has(`n${n.id}`))
        : [];
    const work: [string, (t: Targets) => Promise<void>][] = [
      ...events.map((e): [string, (t: Targets) => Promise<void>] => [
        `e${e.seq}`,
        async (t) => this.#attempt(e, await t.webhook),
      ]),
      ...notes.map((n): [string, (t: Targets) => Promise<void>] => [
        `n${n.id}`,
        async (t) => this.#notify(n, await t.telegram),
      ]),
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
          this.#followUp(key);
        }
        await this.drive();
      }),
    );
  }

  /** A redelivery asked for while `key`'s attempt was out: its fresh schedule, unless that attempt delivered. */
  #followUp(key: string): void {
    const seq = Number(key.slice(1));
    const eventId = key.startsWith("e") ? this.#redeliverAfter.get(seq) : undefined;
    if (eventId === undefined) return;
    this.#redeliverAfter.delete(seq);
    const status = this.store.events.delivery(eventId)?.status;
    if (status === "pending" || status === "failed") this.store.events.redeliver(seq, Date.now());
  }

  #targetsAt(now: number): Targets {
    if (!this.#targets || now - this.#targets.at > TARGETS_TTL_MS) {
      this.#targets = {
        at: now,
        webhook: this.store.tenant().webhookTarget(),
        telegram: this.store.tenant().telegramTarget(),
      };
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
    // Nothing is in flight any more: retention may count again.
    this.store.schedulePurge(now);
    const next = Math.max(
      this.#pausedUntil,
      Math.min(this.store.events.nextDue() ?? Infinity, this.store.notifications.nextDue() ?? Infinity),
    );
    if (next === Infinity) this.store.timers.clear("deliver", "");
    else this.store.timers.set("deliver", "", next);
    await this.store.timers.arm();
  }

  async #attempt(event: OutboxEvent, webhook: WebhookTarget | null): Promise<void> {
    const url = event.callback_url ?? webhook?.url;
    // A callback_url is only accepted while a webhook is configured; its secret signs both.
    if (!url || !webhook) return this.store.events.undeliverable(event.seq);
    if (webhook.disabled && !event.callback_url) {
      return this.store.events.failed(
        event.seq,
        410,
        "The webhook is disabled after a 410 Gone; PUT or PATCH /v1/config to enable it again.",
        Date.now(),
        false,
      );
    }
    const { status, error, refused } = await sendWebhook(
      url,
      webhook.secret,
      event,
      new AbortController().signal,
      this.store.env().ALLOW_PRIVATE_EGRESS === "true",
    );
    const now = Date.now();
    // Not sent, and sending again cannot help until the configuration changes: fail it, uncounted.
    if (refused) return this.store.events.failed(event.seq, null, error, now, false);
    const outcome = afterAttempt(status, event.attempts + 1, now);
    switch (outcome.kind) {
      case "delivered":
        this.store.transaction(() => {
          this.store.events.delivered(event.seq, status!, now);
          // A delivered batch.finished carried the results: it collects them.
          if (event.type === "batch.finished" && event.batch_id)
            this.store.jobs.markCollected(this.store.jobs.byBatch(event.batch_id), now);
        });
        return;
      case "retry":
        return this.store.events.retry(event.seq, status, error, outcome.at);
      case "disable":
        this.store.events.failed(event.seq, status, outcome.reason, now);
        if (!event.callback_url) await this.store.tenant().disableWebhook(webhook.version);
        return;
      case "failed":
        return this.store.events.failed(
          event.seq,
          status,
          status === null ? `${outcome.reason} Last error: ${error}` : outcome.reason,
          now,
        );
    }
  }

  async #notify(note: Notification, telegram: TelegramTarget | null): Promise<void> {
    if (!telegram)
      return this.store.notifications.settle(note.id, {
        failed: "Telegram is no longer configured (telegram.bot_token).",
      });
    const chatId = JSON.parse(note.telegram_chat_id) as string | number;
    const { status, error, refused } = await sendTelegram(
      telegram,
      chatId,
      note.text,
      new AbortController().signal,
      this.store.env().ALLOW_PRIVATE_EGRESS === "true",
    );
    // Not sent, and sending again cannot help until the configuration changes.
    if (refused) return this.store.notifications.settle(note.id, { failed: error });
    const outcome = afterAttempt(status, note.attempts + 1, Date.now());
    if (outcome.kind === "delivered") return this.store.notifications.settle(note.id, { sent: true });
    if (outcome.kind === "retry") return this.store.notifications.settle(note.id, { retryAt: outcome.at, error });
    this.store.notifications.settle(note.id, { failed: error || outcome.reason });
  }
}
