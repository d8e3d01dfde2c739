/**
 * Where a chat's calls run (docs/architecture.md#call-lanes): up to `CALLS_PER_OBJECT` in the chat,
 * the rest in its call lanes, each also at most `CALLS_PER_OBJECT`. Pure: the chat hands in what it
 * knows of the loads (its own, and what it handed each lane and has not heard back about).
 */
import type { RunTarget } from "../../../src/tools/executors";
import { CALLS_PER_OBJECT } from "../../../src/tools/call-meter";

/** Lanes per chat: with the chat's own 4, 68 calls run at once; more wait in the lanes' order. */
export const MAX_LANES = 16;

/** An MCP call holds 2 connections (its POST and its event stream); an unknown target counts as the heavier. */
export function callWeight(target: RunTarget | undefined): number {
  return target === undefined || target.kind === "mcp" ? 2 : 1;
}

export interface Placement {
  here: string[];
  /** Lane index → the jobs it gets, in order. */
  lanes: Map<number, string[]>;
}

/**
 * In order, each call goes to the chat while it has room, else to the first lane with room (a
 * lane already warm is reused before a new one starts). When every lane is full, a call waits in
 * the least loaded one: a lane never has more than its budget waiting, it runs them in turn.
 */
export function placeCalls(calls: readonly { job_id: string; weight: number }[], hereLoad: number, laneLoads: readonly number[], maxLanes = MAX_LANES): Placement {
  const loads = Array.from({ length: maxLanes }, (_, i) => laneLoads[i] ?? 0);
  const placement: Placement = { here: [], lanes: new Map() };
  let here = hereLoad;
  for (const { job_id, weight } of calls) {
    if (here + weight <= CALLS_PER_OBJECT) {
      placement.here.push(job_id);
      here += weight;
      continue;
    }
    let lane = loads.findIndex((load) => load + weight <= CALLS_PER_OBJECT);
    if (lane < 0) lane = loads.indexOf(Math.min(...loads));
    loads[lane]! += weight;
    placement.lanes.set(lane, [...(placement.lanes.get(lane) ?? []), job_id]);
  }
  return placement;
}

/**
 * Calls for Worker runners, in order, in groups of at most `CALLS_PER_OBJECT` weight: each group
 * is one invocation's share, so no invocation has more calls waiting than its budget allows.
 */
export function groupForRunners(calls: readonly { job_id: string; weight: number }[]): string[][] {
  const groups: string[][] = [];
  let load = Infinity;
  for (const { job_id, weight } of calls) {
    if (load + weight > CALLS_PER_OBJECT) {
      groups.push([]);
      load = 0;
    }
    groups.at(-1)!.push(job_id);
    load += weight;
  }
  return groups;
}
