/**
 * Calls whose deadline falls within an invocation's `waitUntil` grace go to Worker runners the chat
 * starts itself (`src/runner/direct-runner.ts`, docs/architecture.md#where-calls-wait): claimed
 * by the dispatcher first, as a lane's share is, then handed over in groups of at most
 * `CALLS_PER_OBJECT` weight, one invocation and one RPC each, which answers at once. No queue message is on their path; the batch's queue copy
 * follows as for calls the chat places itself.
 */
import type { LaneCall } from "../../../src/jobs/messages";
import { CALLS_PER_OBJECT } from "../../../src/tools/call-meter";
import type { ChatStore } from "../storage/chat-store";
import { groupForRunners } from "./call-placement";
import type { Executor } from "./executor";

/** Whether this chat can start runners of its own (a build without the entrypoint sends the calls to the queue). */
export const canStartDirectRunners = (store: ChatStore) => store.ctx.exports?.DirectRunner !== undefined;

/**
 * Hands calls the chat claimed for direct runners (`WORKER_RUNNER` on their rows) to runners of
 * their own, in groups of at most `CALLS_PER_OBJECT` weight.
 */
export function handToDirectRunners(store: ChatStore, executor: Executor, claimed: LaneCall[]): Promise<void> {
  const byId = new Map(claimed.map((c) => [c.call.job_id, c]));
  const groups = groupForRunners(claimed.map((c) => ({ job_id: c.call.job_id, weight: c.weight }))).map((ids) => ids.map((id) => byId.get(id)!));
  return handOver(store, executor, groups);
}

/** Each group to a runner of its own, at most `CALLS_PER_OBJECT` hand-overs waiting at once (each answers at once). */
async function handOver(store: ChatStore, executor: Executor, groups: LaneCall[][]): Promise<void> {
  for (let i = 0; i < groups.length; i += CALLS_PER_OBJECT) {
    await Promise.all(groups.slice(i, i + CALLS_PER_OBJECT).map((calls) => hand(store, executor, calls)));
  }
}

/**
 * One runner's calls. If the RPC fails, the runner may or may not have them: they are taken back
 * under new leases at once (a runner that has them after all is refused by the
 * chat when it renews or reports) and recovered by the attempt rules, as a lost runner's calls are.
 */
async function hand(store: ChatStore, executor: Executor, calls: LaneCall[]): Promise<void> {
  try {
    await store.ctx.exports.DirectRunner.run(calls);
  } catch (e) {
    const ids = calls.map((c) => c.call.job_id);
    console.warn("handing calls to a Worker runner failed; the chat recovers them now", ids.join(","), (e as Error).message);
    executor.runnersLost(ids);
    store.timers.setEarliest("exec", "", Date.now());
    await store.timers.arm();
  }
}
