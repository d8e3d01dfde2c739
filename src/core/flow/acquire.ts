/**
 * A call under several flow rules (docs/api.md#flow-control) starts only when every one has room.
 * It asks for its lines (rule and key) in one order that every call keeps, by shard and then by
 * rule (`inAskingOrder`), each shard once; at the first line that does not grant, it gives back the
 * slots it took and waits there (or ends, if refused). It never waits while it holds a slot, so no
 * set of calls and rules can deadlock: whoever holds slots is running, and running calls end.
 *
 * Calls asked together go in rounds: each round asks every call's next shard, one request per shard
 * for all the calls that need it (in the calls' order, so first come is first served), and gives
 * back at the end of the round what the calls that did not get through had taken.
 *
 * A call keeps a place it had in another line from an earlier try: giving those back too let offers
 * chase each other between two rules without end (the property test found it), while a place kept
 * costs at most one offer that lapses unused (`OFFER_MS`), after which that line drops it.
 */
import { forEachLimited, MAX_OPEN_CONNECTIONS } from "../util/limited";
import type { FlowHold } from "./rules";
import { flowShard, inAskingOrder, lineId, type ShardAnswer } from "./shard";

export type Acquired =
  | { outcome: "granted" }
  | { outcome: "waiting"; at: FlowHold; position: number }
  | { outcome: "refused"; at: FlowHold; message: string };

/** A call asking for room: its holder id and the rules and keys it is under. */
export interface RoomRequest {
  id: string;
  holds: readonly FlowHold[];
}

/** One request to shard `shard`, for every holder in `asks` and its lines there: an answer each, in order. */
export type AskShard = (shard: number, asks: { id: string; holds: FlowHold[] }[]) => Promise<ShardAnswer[]>;
/** One request to shard `shard`: the `ids` of each line give back what they had there. */
export type GiveBackShard = (shard: number, items: { hold: FlowHold; ids: string[] }[]) => Promise<void>;

/** Groups `[hold, id]` pairs by shard and then by line, each line's ids in the order given. */
export function byShard(
  pairs: Iterable<readonly [FlowHold, string]>,
): Map<number, { hold: FlowHold; ids: string[] }[]> {
  const shards = new Map<number, Map<string, { hold: FlowHold; ids: string[] }>>();
  for (const [hold, id] of pairs) {
    const shard = flowShard(hold.key);
    const lines = shards.get(shard) ?? shards.set(shard, new Map()).get(shard)!;
    const line = lineId(hold);
    (lines.get(line) ?? lines.set(line, { hold, ids: [] }).get(line)!).ids.push(id);
  }
  return new Map([...shards].map(([shard, lines]) => [shard, [...lines.values()]]));
}

/** A call's lines cut where the shard changes: one ask per shard, in asking order. */
function shardRuns(holds: readonly FlowHold[]): { shard: number; holds: FlowHold[] }[] {
  const runs: { shard: number; holds: FlowHold[] }[] = [];
  for (const hold of inAskingOrder(holds)) {
    const shard = flowShard(hold.key);
    if (runs.at(-1)?.shard === shard) runs.at(-1)!.holds.push(hold);
    else runs.push({ shard, holds: [hold] });
  }
  return runs;
}

/** Asks for room for every call of `requests` together; the outcome of each, by id. */
export async function acquireMany(
  requests: readonly RoomRequest[],
  ask: AskShard,
  giveBack: GiveBackShard,
): Promise<Map<string, Acquired>> {
  const outcomes = new Map<string, Acquired>();
  const runs = new Map(requests.map((r) => [r.id, shardRuns(r.holds)]));
  const next = new Map<string, number>();
  let open = requests.filter((r) => {
    if (runs.get(r.id)!.length > 0) return next.set(r.id, 0);
    outcomes.set(r.id, { outcome: "granted" });
    return false;
  });
  while (open.length > 0) {
    const byShardNow = new Map<number, { id: string; holds: FlowHold[] }[]>();
    for (const r of open) {
      const run = runs.get(r.id)![next.get(r.id)!]!;
      (byShardNow.get(run.shard) ?? byShardNow.set(run.shard, []).get(run.shard)!).push({ id: r.id, holds: run.holds });
    }
    const answers = new Map<string, ShardAnswer>();
    await forEachLimited([...byShardNow], MAX_OPEN_CONNECTIONS, async ([shard, asks]) => {
      const got = await ask(shard, asks);
      asks.forEach((a, i) => {
        answers.set(a.id, got[i]!);
      });
    });
    const stopped: (readonly [FlowHold, string])[] = [];
    open = open.filter((r) => {
      const at = next.get(r.id)!;
      const answer = answers.get(r.id)!;
      const mine = runs.get(r.id)!;
      if (answer.outcome === "granted") {
        if (at + 1 < mine.length) return next.set(r.id, at + 1);
        outcomes.set(r.id, { outcome: "granted" });
        return false;
      }
      outcomes.set(
        r.id,
        answer.outcome === "queued" ? { outcome: "waiting", at: answer.at, position: answer.position } : answer,
      );
      // What it took in the shards before this one goes back (the shard gave back what it took there).
      stopped.push(...mine.slice(0, at).flatMap((run) => run.holds.map((h) => [h, r.id] as const)));
      return false;
    });
    await forEachLimited([...byShard(stopped)], MAX_OPEN_CONNECTIONS, ([shard, items]) => giveBack(shard, items));
  }
  return outcomes;
}
