/**
 * Claimed calls go to their runners (docs/architecture.md#where-a-call-runs): to Worker invocations
 * the chat starts itself (`src/edge/direct-runner.ts`), in groups of at most `CALLS_PER_OBJECT`
 * weight, one invocation and one RPC each; or to a runner object of the chat's, in one RPC. Either
 * answers at once and the calls go on there. No queue message is on their path; the batch's queue
 * copy follows as for every call.
 */
import type { RunnerCall } from "../../../src/core/jobs/messages";
import { CALLS_PER_OBJECT } from "../../../src/core/tools/call-meter";
import type { ChatStore } from "../storage/chat-store";
import { groupForRunners } from "./call-placement";
import type { Runners } from "./runners";

/** A hand-over that failed is tried again this much later: soon, but not in a loop while a runner cannot be reached. */
export const HANDOVER_RETRY_MS = 1_000;

/** Whether this chat can start Worker invocations of its own (a build without the entrypoint sends the calls to the queue). */
export const canStartInvocations = (store: ChatStore) => store.ctx.exports?.DirectRunner !== undefined;

/** Calls claimed for Worker runners (`WORKER_RUNNER` on their rows), each group to an invocation of its own. */
export async function handToInvocations(store: ChatStore, runners: Runners, claimed: RunnerCall[]): Promise<void> {
  const byId = new Map(claimed.map((c) => [c.call.job_id, c]));
  const groups = groupForRunners(claimed.map((c) => ({ job_id: c.call.job_id, weight: c.weight }))).map((ids) => ids.map((id) => byId.get(id)!));
  // At most `CALLS_PER_OBJECT` hand-overs waiting at once (each answers at once).
  for (let i = 0; i < groups.length; i += CALLS_PER_OBJECT) {
    await Promise.all(groups.slice(i, i + CALLS_PER_OBJECT).map((calls) => hand(store, runners, calls, (c) => store.ctx.exports.DirectRunner.run(c))));
  }
}

/** Calls claimed for runner object `index`, in one RPC. */
export function handToObject(store: ChatStore, runners: Runners, index: number, claimed: RunnerCall[]): Promise<void> {
  return hand(store, runners, claimed, (c) => store.callRunner(index).run(c));
}

/**
 * If the RPC fails, the runner may or may not have the calls: they are taken back under new leases
 * at once (a runner that has them after all is refused when it renews or reports) and recovered by
 * the attempt rules, as a lost runner's calls are.
 */
async function hand(store: ChatStore, runners: Runners, calls: RunnerCall[], send: (calls: RunnerCall[]) => Promise<void>): Promise<void> {
  if (calls.length === 0) return;
  try {
    await send(calls);
  } catch (e) {
    const ids = calls.map((c) => c.call.job_id);
    console.warn("handing calls to a runner failed; the chat recovers them now", ids.join(","), (e as Error).message);
    runners.lost(ids);
    store.timers.setEarliest("exec", "", Date.now() + HANDOVER_RETRY_MS);
    await store.timers.arm();
  }
}
