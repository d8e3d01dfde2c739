/**
 * A call under several flow rules (docs/api.md#flow-control) starts only when every one has room.
 * It asks them one by one in rule-name order; at the first that does not grant, it gives back the
 * slots it just took and waits there (or ends, if refused). It never waits while it holds a slot,
 * so no set of calls and rules can deadlock: whoever holds slots is running, and running calls end.
 *
 * It keeps a place it had in another line from an earlier try: giving those back too let offers
 * chase each other between two rules without end (the property test found it), while a place kept
 * costs at most one offer that lapses unused (`OFFER_MS`), after which that line drops it.
 */
import type { FlowHold } from "./rules";
import type { Answer } from "./slots";

export type Acquired =
  | { outcome: "granted" }
  | { outcome: "waiting"; at: FlowHold; position: number }
  | { outcome: "refused"; at: FlowHold; message: string };

/** `ask` and `giveBack` reach the object of one rule and key (one request each). */
export async function acquireAll(
  holds: readonly FlowHold[],
  ask: (hold: FlowHold) => Promise<Answer>,
  giveBack: (hold: FlowHold) => Promise<void>,
): Promise<Acquired> {
  const taken: FlowHold[] = [];
  for (const hold of holds) {
    const answer = await ask(hold);
    if (answer.outcome === "granted") {
      taken.push(hold);
      continue;
    }
    await Promise.all(taken.map(giveBack));
    return answer.outcome === "queued" ? { outcome: "waiting", at: hold, position: answer.position } : { outcome: "refused", at: hold, message: answer.message };
  }
  return { outcome: "granted" };
}
