/**
 * One flow rule and key (docs/api.md#flow-control): the calls that hold its slots, the calls
 * waiting for one, and its rate. Pure: the flow object keeps this state in a row and calls these.
 *
 * A slot is a lease until its holder's deadline, so a holder lost with its chat frees it at the
 * latest then. When a slot frees, the next waiter (`./fair-pick`) gets it. A waiter for whom this is
 * the only line (`sole`: a call under one rule) is granted it at once, and its chat told to start
 * it: no ask again, so the hand-off is one message. Any other is offered the slot for a short while:
 * newcomers cannot take it meanwhile, and the waiter, woken, asks again for every rule it needs.
 * A call never waits while it holds anything: one that gets this rule's slot and not another's
 * gives this one back and waits at the other, so no set of rules can deadlock.
 */
import { nextWaiter, type Waiter } from "./fair-pick";
import { startsAvailable, takeStart, type RateRule, type RateState } from "./rate";

export interface SlotRule {
  name: string;
  /** Keyed (`key` in the config): its keys report to the rule's index, which `GET /v1/flow` reads. */
  keyed?: boolean;
  concurrency?: number;
  rate?: RateRule;
  on_limit: "queue" | "reject";
  max_queued: number;
}

export interface Lease {
  job_id: string;
  chat: string;
  /** It frees itself then: its holder's deadline (a holder), or the end of an offer. */
  until: number;
}

/**
 * A call in line: it leaves the line at its deadline, should its chat never say it ended. `sole`:
 * this is its only line, so a freed slot is granted to it outright.
 */
export type InLine = Waiter & { until: number; sole?: true };

export interface SlotState {
  holders: Lease[];
  /** Slots kept for woken waiters until they ask again. */
  offers: Lease[];
  waiters: InLine[];
  rate: RateState;
  /** When each chat last had a call start here (for the fair pick). */
  last_start: Record<string, number>;
  next_seq: number;
}

/** How long a woken waiter has to ask again before its slot goes to the next one. */
export const OFFER_MS = 10_000;

export const emptySlots = (): SlotState => ({
  holders: [],
  offers: [],
  waiters: [],
  rate: 0,
  last_start: {},
  next_seq: 1,
});

export interface Ask {
  job_id: string;
  chat: string;
  /** The call's deadline: a slot it gets is its lease until then. */
  deadline_at: number;
  /** This is the call's only line (one rule): should it wait, a freed slot is granted to it outright. */
  sole?: boolean;
}

export type Answer =
  | { outcome: "granted" }
  | { outcome: "queued"; position: number }
  | { outcome: "refused"; message: string };

/**
 * Leases and places in line past their time are gone, and so is a woken waiter that let its offer
 * lapse (it asks again to get back in line, at the end): it must not be offered the slot again and
 * again while the next one waits. The same state when nothing went (so it is not written again).
 */
function expire(state: SlotState, now: number): SlotState {
  const live = (l: { until: number }) => l.until > now;
  if (state.holders.every(live) && state.offers.every(live) && state.waiters.every(live)) return state;
  const lapsed = new Set(state.offers.filter((o) => !live(o)).map((o) => o.job_id));
  const waiters = state.waiters.filter((w) => live(w) && !lapsed.has(w.job_id));
  return {
    ...state,
    holders: state.holders.filter(live),
    offers: state.offers.filter(live),
    waiters,
    last_start: startsOfChatsInLine(state.last_start, waiters),
  };
}

/** Only chats with a call in line need their last start remembered (the fair pick reads no other). */
function startsOfChatsInLine(lastStart: Record<string, number>, waiters: readonly InLine[]): Record<string, number> {
  const inLine = new Set(waiters.map((w) => w.chat));
  return Object.fromEntries(Object.entries(lastStart).filter(([chat]) => inLine.has(chat)));
}

const used = (s: SlotState) => s.holders.length + s.offers.length;
const concurrencyFull = (rule: SlotRule, s: SlotState, plus = 0) =>
  rule.concurrency !== undefined && used(s) + plus >= rule.concurrency;

/** The text a refused call ends with (docs/api.md#flow-control). */
function refusal(rule: SlotRule, s: SlotState, now: number): string {
  const running = s.holders.length;
  if (concurrencyFull(rule, s))
    return `Flow rule '${rule.name}' is at its limit (${running} running, limit ${rule.concurrency}); try again later.`;
  const period = rule.rate!.period_seconds;
  const burst = rule.rate!.burst ?? rule.rate!.limit;
  const started = Math.min(rule.rate!.limit, burst - startsAvailable(rule.rate!, s.rate, now));
  return `Flow rule '${rule.name}' is at its limit (${running} running, ${started} started in the last ${period} s); try again later.`;
}

/**
 * A call asks for a slot: granted (it holds one until its deadline), queued (it waits, first come
 * first served per key, fair across chats), or refused (`reject`, or the queue is full). Asking
 * again is safe: a holder is granted again, a waiter keeps its place, a woken waiter takes its offer.
 * An ask that changes nothing answers with the very state it was given.
 */
export function ask(rule: SlotRule, before: SlotState, a: Ask, now: number): { state: SlotState; answer: Answer } {
  let state = expire(before, now);
  if (state.holders.some((h) => h.job_id === a.job_id)) return { state, answer: { outcome: "granted" } };
  const offered = state.offers.some((o) => o.job_id === a.job_id);
  const waiting = state.waiters.find((w) => w.job_id === a.job_id);
  // Room: the slot offered to this call, or a free one that nobody waits for.
  const ahead = state.waiters.length - (waiting ? 1 : 0) + state.offers.length;
  const rate = rule.rate ? takeStart(rule.rate, state.rate, now) : undefined;
  if ((offered || (!concurrencyFull(rule, state) && ahead === 0)) && rate?.ok !== false) {
    const waiters = state.waiters.filter((w) => w.job_id !== a.job_id);
    state = {
      ...state,
      holders: [...state.holders, { job_id: a.job_id, chat: a.chat, until: a.deadline_at }],
      offers: state.offers.filter((o) => o.job_id !== a.job_id),
      waiters,
      rate: rate?.ok ? rate.state : state.rate,
      last_start: startsOfChatsInLine({ ...state.last_start, [a.chat]: now }, waiters),
    };
    return { state, answer: { outcome: "granted" } };
  }
  if (rule.on_limit === "reject") return { state, answer: { outcome: "refused", message: refusal(rule, state, now) } };
  // An offered waiter the rate has no start for yet keeps its place at the head; its offer goes.
  if (offered) state = { ...state, offers: state.offers.filter((o) => o.job_id !== a.job_id) };
  if (!waiting) {
    // Past `max_queued` a call is refused as if the rule were `reject`, with the same text: a caller
    // handles one refusal whichever way the line was full.
    if (state.waiters.length >= rule.max_queued)
      return { state, answer: { outcome: "refused", message: refusal(rule, state, now) } };
    const inLine: InLine = {
      job_id: a.job_id,
      chat: a.chat,
      seq: state.next_seq,
      arrived_at: now,
      until: a.deadline_at,
      ...(a.sole ? { sole: true as const } : {}),
    };
    state = { ...state, waiters: [...state.waiters, inLine], next_seq: state.next_seq + 1 };
  }
  return { state, answer: { outcome: "queued", position: position(state, a.job_id) } };
}

/** A waiter's place in line (1 = next), in seq order: one pass, since a line may hold thousands. */
function position(state: SlotState, jobId: string): number {
  const seq = state.waiters.find((w) => w.job_id === jobId)!.seq;
  return state.waiters.reduce((n, w) => (w.seq < seq ? n + 1 : n), 1);
}

/**
 * A call gives back what it has here (its slot, its offer, its place in line): it ended, or it waits at
 * another rule.
 */
export function giveBack(before: SlotState, jobId: string, now: number): SlotState {
  const state = expire(before, now);
  // A line may hold thousands of waiters: a list without the call is kept as it is.
  const without = <L extends { job_id: string }>(list: L[]) =>
    list.some((l) => l.job_id === jobId) ? list.filter((l) => l.job_id !== jobId) : list;
  return {
    ...state,
    holders: without(state.holders),
    offers: without(state.offers),
    waiters: without(state.waiters),
  };
}

/**
 * Hands free slots to the waiters next in line: a sole waiter's becomes its own at once
 * (`granted`: its chat starts it), any other's is offered (`woken`: its chat asks again). When
 * the rate holds the next one back, `again` says when to look again.
 */
export function offerNext(
  rule: SlotRule,
  before: SlotState,
  now: number,
): { state: SlotState; woken: InLine[]; granted: InLine[]; again?: number } {
  let state = expire(before, now);
  const woken: InLine[] = [];
  const granted: InLine[] = [];
  for (;;) {
    const candidates = state.offers.length
      ? state.waiters.filter((w) => !state.offers.some((o) => o.job_id === w.job_id))
      : state.waiters;
    const next = nextWaiter(candidates, (chat) => state.last_start[chat]);
    if (!next || concurrencyFull(rule, state)) break;
    let rate = state.rate;
    if (rule.rate) {
      // An offer's start is spent when the woken waiter takes its slot; one offer at a time while the rate is the limit.
      const pending = state.offers.length;
      const probe = takeStart(rule.rate, state.rate, now);
      if (!probe.ok) return { state, woken, granted, again: probe.at };
      if (pending > 0 && startsAvailable(rule.rate, state.rate, now) <= pending) break;
      rate = probe.state;
    }
    if (next.sole) {
      const waiters = state.waiters.filter((w) => w.job_id !== next.job_id);
      state = {
        ...state,
        holders: [...state.holders, { job_id: next.job_id, chat: next.chat, until: next.until }],
        waiters,
        rate,
        last_start: startsOfChatsInLine({ ...state.last_start, [next.chat]: now }, waiters),
      };
      granted.push(next);
      continue;
    }
    state = { ...state, offers: [...state.offers, { job_id: next.job_id, chat: next.chat, until: now + OFFER_MS }] };
    woken.push(next);
  }
  const soonest = [...state.holders, ...state.offers, ...state.waiters].reduce(
    (t, l) => Math.min(t, l.until),
    Infinity,
  );
  return {
    state,
    woken,
    granted,
    ...(state.waiters.length > woken.length && soonest < Infinity ? { again: soonest } : {}),
  };
}

/** What `GET /v1/flow` shows of one key. */
export function figures(rule: SlotRule, before: SlotState, now: number) {
  const state = expire(before, now);
  return {
    running: state.holders.length,
    queued: state.waiters.length,
    ...(rule.rate ? { available: startsAvailable(rule.rate, state.rate, now) } : {}),
  };
}
