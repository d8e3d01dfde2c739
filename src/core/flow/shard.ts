/**
 * A tenant's flow shards (docs/architecture.md#flow-objects): where the lines of its flow rules
 * live. A line is one rule and key (`./slots`); it lives in the shard its key hashes to, so a
 * tenant has at most `FLOW_SHARDS` flow objects, whatever keys its calls bring.
 *
 * Red team, round 4: with one object per rule and key, `key: "args.u"` let a model choose keys, 32
 * keyed rules × 32 calls made 1,024 objects in one request, and nothing deleted them. Now a key is
 * a row of its shard, deleted once it holds nothing, and a shard's storage goes when it has no row.
 * Rules keyed on the same field put a call's lines in one shard: a call under many rules asks them
 * all in one request. Pure: the flow object keeps the lines in rows and calls these.
 */
import type { FlowHold } from "./rules";
import {
  ask,
  emptySlots,
  giveBack,
  offerNext,
  type Answer,
  type Ask,
  type InLine,
  type SlotRule,
  type SlotState,
} from "./slots";

/** A line's identity in maps and in the shard's memory. */
export const lineId = (hold: FlowHold) => `${hold.rule}\u0000${hold.key}`;

/** Flow objects per tenant. */
export const FLOW_SHARDS = 8;

/** The shard of a key: FNV-1a over its UTF-16 units, stable across isolates and deploys. */
export function flowShard(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % FLOW_SHARDS;
}

/**
 * The one order every call takes its lines in, by shard and then by rule: a call asks each shard
 * once, and no two calls can each hold what the other waits for.
 */
export function inAskingOrder(holds: readonly FlowHold[]): FlowHold[] {
  return [...holds].sort(
    (a, b) => flowShard(a.key) - flowShard(b.key) || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0),
  );
}

/** A line as its shard keeps it: the rule as the newest call brought it, and its slots. */
export interface Line {
  rule: SlotRule;
  /** When the config `rule` came from was read (a call's admission): an older one does not bring back old limits. */
  rule_as_of?: number;
  slots: SlotState;
}

/** A call asking one shard for its lines there, in asking order. */
export interface ShardAsk extends Ask {
  holds: FlowHold[];
}

export type ShardAnswer =
  | { outcome: "granted" }
  | { outcome: "queued"; at: FlowHold; position: number }
  | { outcome: "refused"; at: FlowHold; message: string };

/** The lines a shard reads and changes while it answers (undefined: a line it does not hold yet). */
export interface Lines {
  get(hold: FlowHold): Line | undefined;
  set(hold: FlowHold, line: Line): void;
}

/**
 * Calls ask for their lines in this shard, in order: a call gets all of them or, at the first
 * without room, gives back what it took here and waits there (or is refused). A line whose rule a
 * newer admission brought is judged against the newer limits from now on.
 */
export function askLines(
  lines: Lines,
  rules: Record<string, { rule: SlotRule; asOf: number }>,
  asks: readonly ShardAsk[],
  now: number,
): ShardAnswer[] {
  const current = (hold: FlowHold): Line => {
    const brought = rules[hold.rule]!;
    const line = lines.get(hold);
    if (line && (line.rule_as_of ?? -Infinity) >= brought.asOf) return line;
    return { rule: brought.rule, rule_as_of: brought.asOf, slots: line?.slots ?? emptySlots() };
  };
  return asks.map((a): ShardAnswer => {
    const taken: FlowHold[] = [];
    for (const hold of a.holds) {
      const line = current(hold);
      const asked = ask(line.rule, line.slots, a, now);
      if (asked.state !== line.slots || line !== lines.get(hold)) lines.set(hold, { ...line, slots: asked.state });
      if (asked.answer.outcome === "granted") {
        taken.push(hold);
        continue;
      }
      // It never waits while it holds a slot: what it took here goes back at once.
      for (const t of taken) {
        const had = lines.get(t)!;
        lines.set(t, { ...had, slots: giveBack(had.slots, a.job_id, now) });
      }
      return stopped(asked.answer, hold);
    }
    return { outcome: "granted" };
  });
}

const stopped = (answer: Exclude<Answer, { outcome: "granted" }>, at: FlowHold): ShardAnswer =>
  answer.outcome === "queued"
    ? { outcome: "queued", at, position: answer.position }
    : { outcome: "refused", at, message: answer.message };

/** Calls give back what they had at these lines: they ended, or they wait at another line. */
export function giveBackLines(
  lines: Lines,
  items: readonly { hold: FlowHold; ids: readonly string[] }[],
  now: number,
): void {
  for (const { hold, ids } of items) {
    const line = lines.get(hold);
    if (line) lines.set(hold, { ...line, slots: ids.reduce((slots, id) => giveBack(slots, id, now), line.slots) });
  }
}

/**
 * A line after its change: what is free handed to the next in line (`granted` outright, `woken`
 * with an offer, as `offerNext` says). `wakeAt`: when the shard must
 * look at it again (a lease or a place that runs out, a rate that holds the next start back, a
 * rate still refilling); undefined when it holds nothing at all, and its row can go.
 */
export function settleLine(
  line: Line,
  now: number,
): { line: Line; woken: InLine[]; granted: InLine[]; wakeAt?: number } {
  const { state, woken, granted, again } = offerNext(line.rule, line.slots, now);
  const settled = { ...line, slots: state };
  const held = state.holders.length + state.offers.length + state.waiters.length > 0;
  // A spent rate is state too: forgetting it early would hand out a fresh burst.
  const refilling = state.rate > now ? state.rate : undefined;
  const leases = held
    ? [...state.holders, ...state.offers, ...state.waiters].reduce((t, l) => Math.min(t, l.until), Infinity)
    : Infinity;
  const wakeAt = Math.min(again ?? Infinity, leases, refilling ?? Infinity);
  return { line: settled, woken, granted, ...(wakeAt < Infinity ? { wakeAt } : {}) };
}

/** What `GET /v1/flow` reads of one line that runs, waits, or still has a spent rate. */
export interface LineFigures {
  rule: string;
  key: string;
  running: number;
  queued: number;
  available?: number;
}

/** Keys `GET /v1/flow` lists per rule. */
export const BUSIEST_KEYS = 20;

/**
 * One rule's figures over its lines in every shard: its totals, the least headroom its rate has
 * under any key (its whole burst when no key has spent any), and its busiest keys.
 */
export function ruleFigures(
  rule: { name: string; rate?: { limit: number; burst?: number } },
  lines: readonly LineFigures[],
) {
  const mine = lines.filter((l) => l.rule === rule.name);
  const headroom = mine.flatMap((l) => (l.available === undefined ? [] : [l.available]));
  const busy = mine.filter((l) => l.running + l.queued > 0);
  busy.sort((a, b) => b.running + b.queued - (a.running + a.queued) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    running: mine.reduce((n, l) => n + l.running, 0),
    queued: mine.reduce((n, l) => n + l.queued, 0),
    available: rule.rate ? Math.min(rule.rate.burst ?? rule.rate.limit, ...headroom) : undefined,
    keys: busy.slice(0, BUSIEST_KEYS).map(({ key, running, queued }) => ({ key, running, queued })),
  };
}
