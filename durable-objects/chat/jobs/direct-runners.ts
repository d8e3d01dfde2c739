/**
 * Calls whose deadline falls within an invocation's `waitUntil` grace go to Worker runners the chat
 * starts itself (`src/runner/direct-runner.ts`, docs/architecture.md#where-calls-wait): claimed
 * here first, then handed over in groups of at most `CALLS_PER_OBJECT` weight, one invocation and
 * one RPC each, which answers at once. No queue message is on their path; the batch's queue copy
 * follows as for calls the chat places itself.
 */
import type { JobRow } from "../../../src/jobs/job";
import type { LaneCall } from "../../../src/jobs/messages";
import { WORKER_RUNNER } from "../../../src/runner/lease";
import { CALLS_PER_OBJECT } from "../../../src/tools/call-meter";
import type { RunTarget } from "../../../src/tools/executors";
import type { ChatStore } from "../storage/chat-store";
import { groupForRunners } from "./call-placement";
import type { Executor, RunAnswer } from "./executor";

/** Whether this chat can start runners of its own (a build without the entrypoint sends the calls to the queue). */
export const canStartDirectRunners = (store: ChatStore) => store.ctx.exports?.DirectRunner !== undefined;

/**
 * Claims the jobs for direct runners, synchronously (nothing can take them in between), and hands
 * them over: each job's claim answer at once, and the hand-overs' end. A call without its target
 * cannot leave and answers `failed`: its queue copy starts it again.
 */
export function startDirectRunners(
  store: ChatStore,
  executor: Executor,
  jobs: JobRow[],
  targetOf: (job: JobRow) => RunTarget | undefined,
): { answers: Map<string, RunAnswer | "failed">; handed: Promise<void> } {
  const now = Date.now();
  const answers = new Map<string, RunAnswer | "failed">();
  const claimed = new Map<string, LaneCall>();
  for (const job of jobs) {
    const target = targetOf(job);
    const taken = target ? executor.claimAway(job, target, WORKER_RUNNER, now) : "failed";
    if (typeof taken === "string") answers.set(job.job_id, taken);
    else {
      claimed.set(job.job_id, taken);
      answers.set(job.job_id, "started");
    }
  }
  const groups = groupForRunners([...claimed.values()].map((c) => ({ job_id: c.call.job_id, weight: c.weight }))).map((ids) => ids.map((id) => claimed.get(id)!));
  return { answers, handed: handOver(store, executor, groups) };
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
