/**
 * Claimed calls go to their runners (docs/architecture.md#where-a-call-runs): to Worker invocations
 * the chat starts itself (`src/edge/direct-runner.ts`), in groups of at most `CALLS_PER_OBJECT`
 * weight, one invocation and one RPC each; or to a runner object of the chat's, in one RPC. Either
 * answers at once and the calls go on there. No queue message is on their path; the batch's queue
 * copy follows as for every call.
 */
import type { RunnerCall } from "../../../src/core/jobs/messages";
import { CALLS_PER_OBJECT } from "../../../src/core/tools/call-meter";
import { RENEW_EVERY_MS } from "../../../src/core/runner/lease";
import type { ChatStore } from "../storage/chat-store";
import { groupForRunners } from "./call-placement";
import type { Runners } from "./runners";

/** The first retry of a hand-over to an invocation that failed; each failure after it doubles the wait. */
export const HANDOVER_RETRY_MS = 1_000;
/** The longest wait between two tries. */
const HANDOVER_RETRY_MAX_MS = 3 * RENEW_EVERY_MS;

/**
 * Whether this chat can start Worker invocations of its own (a build without the entrypoint sends the calls
 * to the queue).
 */
export const canStartInvocations = (store: ChatStore) => store.ctx.exports?.DirectRunner !== undefined;

/**
 * Calls due within an invocation's grace, each group to an invocation of its own, at most
 * `CALLS_PER_OBJECT` hand-overs waiting at once (each answers at once). A group is claimed
 * (`claim`, `WORKER_RUNNER` on its rows) only when it is handed, so no call is claimed and then left
 * waiting behind a slow hand-over.
 */
export async function handToInvocations(
  store: ChatStore,
  runners: Runners,
  calls: { job_id: string; weight: number }[],
  claim: (jobIds: string[]) => RunnerCall[],
  /** Claims after an await, from rows read again (a job may have ended or been taken meanwhile). */
  claimLater: (jobIds: string[]) => RunnerCall[],
): Promise<void> {
  const groups = groupForRunners(calls);
  for (let i = 0; i < groups.length; i += CALLS_PER_OBJECT) {
    const claimed = groups
      .slice(i, i + CALLS_PER_OBJECT)
      .map(i === 0 ? claim : claimLater)
      .filter((c) => c.length > 0);
    if (i > 0) await store.timers.arm(); // the first groups' claims are armed by the launch
    await Promise.all(claimed.map((c) => toInvocation(store, runners, c)));
  }
}

/**
 * If the RPC fails, the invocation may or may not have the calls, and their deadline comes before
 * a lease could lapse: they are taken back under new leases at once (an invocation that has them
 * after all is refused when it renews or reports) and recovered by the attempt rules, later each
 * time it fails again.
 */
async function toInvocation(store: ChatStore, runners: Runners, calls: RunnerCall[]): Promise<void> {
  try {
    await store.ctx.exports.DirectRunner.run(calls);
  } catch (e) {
    const ids = calls.map((c) => c.call.job_id);
    console.warn("handing calls to an invocation failed; the chat recovers them", ids.join(","), (e as Error).message);
    runners.lost(ids);
    const failures = Math.max(...ids.map((id) => runners.room.handOverFailed(id)));
    store.timers.setEarliest(
      "exec",
      "",
      Date.now() + Math.min(HANDOVER_RETRY_MS * 2 ** (failures - 1), HANDOVER_RETRY_MAX_MS),
    );
    await store.timers.arm();
  }
}

/**
 * Calls claimed for runner object `index`, in one RPC. If it fails, the object may or may not have
 * them; their lease decides, as for any runner: an object that has them renews it, and the calls of
 * one that does not lapse in 30 s and are recovered then. Their deadline is far beyond that.
 */
export async function handToObject(store: ChatStore, index: number, claimed: RunnerCall[]): Promise<void> {
  if (claimed.length === 0) return;
  try {
    await store.callRunner(index).run(claimed);
  } catch (e) {
    console.warn("handing calls to a runner object failed; their leases decide", index, (e as Error).message);
  }
}
