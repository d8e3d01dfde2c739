/**
 * How a chat's calls are spread over their hosts' connection budgets (docs/architecture.md#where-a-call-runs):
 * no runner has more than `CALLS_PER_OBJECT` waiting for headers. Pure: the chat hands in what it
 * knows of the loads (what it handed each runner object and has not heard back about).
 */
import type { RunTarget } from "../../../src/core/tools/executors";
import { CALLS_PER_OBJECT } from "../../../src/core/tools/call-meter";

/** Runner objects per chat: 64 calls past a consumer's lifetime run at once; more wait in the objects' order. */
export const RUNNER_OBJECTS = 16;

/** An MCP call holds 2 connections (its POST and its event stream); an unknown target counts as the heavier. */
export function callWeight(target: RunTarget | undefined): number {
  return target === undefined || target.kind === "mcp" ? 2 : 1;
}

/**
 * Runner object index → the calls it gets, in order. Each call goes to the first object with room
 * (one already warm is reused before a new one starts); when every object is full, it waits in the
 * least loaded one, which runs what it holds in turn.
 */
export function placeInObjects(
  calls: readonly { job_id: string; weight: number }[],
  loadsNow: readonly number[],
  objects = RUNNER_OBJECTS,
): Map<number, string[]> {
  const loads = Array.from({ length: objects }, (_, i) => loadsNow[i] ?? 0);
  const placement = new Map<number, string[]>();
  for (const { job_id, weight } of calls) {
    let at = loads.findIndex((load) => load + weight <= CALLS_PER_OBJECT);
    if (at < 0) at = loads.indexOf(Math.min(...loads));
    loads[at]! += weight;
    placement.set(at, [...(placement.get(at) ?? []), job_id]);
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
