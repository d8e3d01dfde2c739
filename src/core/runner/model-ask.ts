/**
 * A child chat's model request while a Worker runner makes it (docs/architecture.md#model-requests):
 * the chat writes the ask, sends its `calls` message, and looks again when the ask could have
 * lapsed. Pure: the chat's `ModelAsks` keeps the record, the unit tests hold these rules.
 *
 * A model request has no side effect, so an ask whose runner is lost, or whose message never
 * arrived, is simply asked again under a new lease; whatever the old runner sends later is stale.
 */
import { RENEW_EVERY_MS, RUNNER_LAPSES_AFTER_MS } from "./lease";

/** A turn's model request on its way to a runner, or held by one. */
export interface ModelAsk {
  turn_id: string;
  /** New for every ask: each step's request, and each time one is asked again. */
  lease: string;
  sent_at: number;
  /** When a runner claimed it, or last renewed it; null while its message is on its way. */
  renewed_at: number | null;
  /** The span of its `chat` request when the turn's trace is kept (docs/api.md#traces). */
  span?: string;
}

/** How often the runner renews its ask: as often as a tool call's lease. */
export const ASK_RENEW_EVERY_MS = RENEW_EVERY_MS;

/**
 * A message not claimed in this long is sent again, like a batch's queue copy after the dispatch
 * watchdog's 15 s: the queue lost it, or delivers it late, and a late claim finds a newer lease.
 */
export const ASK_UNCLAIMED_MS = 15_000;

/** When the chat should look at the ask again: where it lapses if nothing is heard. */
export function askCheckAt(ask: ModelAsk): number {
  return ask.renewed_at === null ? ask.sent_at + ASK_UNCLAIMED_MS : ask.renewed_at + RUNNER_LAPSES_AFTER_MS;
}

/**
 * Whether the ask is to be sent again: never claimed in time, or claimed by a runner gone silent (from its
 * check on, so the timer set for the check finds it lapsed).
 */
export function askLapsed(ask: ModelAsk, now: number): boolean {
  return now >= askCheckAt(ask);
}

/**
 * Whether `lease` names the ask the turn is waiting on (a claim, a renewal or a reply under an older lease is
 * stale).
 */
export function holdsAsk(ask: ModelAsk | undefined, turnId: string, lease: string): ask is ModelAsk {
  return ask !== undefined && ask.turn_id === turnId && ask.lease === lease;
}
