/**
 * A call under several flow rules (docs/api.md#flow-control) starts only when every one has room.
 * It asks them one by one in rule-name order; at the first that does not grant, it gives back the
 * slots it just took and waits there (or ends, if refused). It never waits while it holds a slot,
 * so no set of calls and rules can deadlock: whoever holds slots is running, and running calls end.
 *
 * Calls asked together go in rounds: each round asks every call's next rule, one request per rule
 * and key for all the calls that need it (in the calls' order, so first come is first served), and
 * gives back at the end of the round what the calls that did not get through had taken.
 *
 * A call keeps a place it had in another line from an earlier try: giving those back too let offers
 * chase each other between two rules without end (the property test found it), while a place kept
 * costs at most one offer that lapses unused (`OFFER_MS`), after which that line drops it.
 */
import { forEachLimited, MAX_OPEN_CONNECTIONS } from "../util/limited";
import type { FlowHold } from "./rules";
import type { Answer } from "./slots";

export type Acquired =
  | { outcome: "granted" }
  | { outcome: "waiting"; at: FlowHold; position: number }
  | { outcome: "refused"; at: FlowHold; message: string };

/** A call asking for room: its holder id and the rules and keys it is under, in rule-name order. */
export interface RoomRequest {
  id: string;
  holds: readonly FlowHold[];
}

/** One request to the object of `hold`'s rule and key, for every holder in `ids`: an answer each, in order. */
export type AskObject = (hold: FlowHold, ids: string[]) => Promise<Answer[]>;
/** One request to the object of `hold`'s rule and key: `ids` give back what they had there. */
export type GiveBackObject = (hold: FlowHold, ids: string[]) => Promise<void>;

export const holdId = (hold: FlowHold) => `${hold.rule}\u0000${hold.key}`;

/** Groups `[hold, id]` pairs by the object they go to, each group's ids in the order given. */
export function byObject(pairs: Iterable<readonly [FlowHold, string]>): { hold: FlowHold; ids: string[] }[] {
  const groups = new Map<string, { hold: FlowHold; ids: string[] }>();
  for (const [hold, id] of pairs) {
    const group = groups.get(holdId(hold)) ?? groups.set(holdId(hold), { hold, ids: [] }).get(holdId(hold))!;
    group.ids.push(id);
  }
  return [...groups.values()];
}

/** Asks for room for every call of `requests` together; the outcome of each, by id. */
export async function acquireMany(requests: readonly RoomRequest[], ask: AskObject, giveBack: GiveBackObject): Promise<Map<string, Acquired>> {
  const outcomes = new Map<string, Acquired>();
  const next = new Map<string, number>();
  let open = requests.filter((r) => {
    if (r.holds.length > 0) return next.set(r.id, 0);
    outcomes.set(r.id, { outcome: "granted" });
    return false;
  });
  while (open.length > 0) {
    const answers = new Map<string, Answer>();
    await forEachLimited(byObject(open.map((r) => [r.holds[next.get(r.id)!]!, r.id] as const)), MAX_OPEN_CONNECTIONS, async ({ hold, ids }) => {
      const got = await ask(hold, ids);
      ids.forEach((id, i) => answers.set(id, got[i]!));
    });
    const stopped: (readonly [FlowHold, string])[] = [];
    open = open.filter((r) => {
      const at = next.get(r.id)!;
      const answer = answers.get(r.id)!;
      if (answer.outcome === "granted") {
        if (at + 1 < r.holds.length) return next.set(r.id, at + 1);
        outcomes.set(r.id, { outcome: "granted" });
        return false;
      }
      const hold = r.holds[at]!;
      outcomes.set(r.id, answer.outcome === "queued" ? { outcome: "waiting", at: hold, position: answer.position } : { outcome: "refused", at: hold, message: answer.message });
      stopped.push(...r.holds.slice(0, at).map((h) => [h, r.id] as const));
      return false;
    });
    await forEachLimited(byObject(stopped), MAX_OPEN_CONNECTIONS, ({ hold, ids }) => giveBack(hold, ids));
  }
  return outcomes;
}
