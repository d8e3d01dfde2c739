/**
 * The jobs' duties the alarm runs: deadlines, the dispatch watchdog and the
 * heartbeat that recovers calls lost with an earlier instance. Each is
 * idempotent and sets its own next run, so an alarm that fires twice, or late,
 * does the right thing.
 */
import type { ChatStore } from "../storage/chat-store";
import { DISPATCH_WATCHDOG_MS } from "./batch-rows";
import type { Dispatcher } from "./dispatcher";
import { EXEC_HEARTBEAT_MS, type Executor } from "./executor";
import type { JobMachine } from "./job-machine";
import { runOnSelf } from "./self-calls";

/** One timer for the chat, at its earliest deadline: every job past its deadline ends, then the timer moves to the next. */
export function expirePastDeadline(store: ChatStore, machine: JobMachine, now: number): void {
  for (const job of store.jobs.pastDeadline(now)) machine.expire(job, now);
  const next = store.jobs.nextDeadline();
  if (next !== undefined) store.timers.set("deadline", "", next);
}

/** One watchdog for the chat: every job that should have started and has not gets its queue copy again; one that did start absorbs it. */
export async function redispatchStuck(store: ChatStore, dispatcher: Dispatcher, now: number): Promise<void> {
  const stuck = store.jobs.undispatched();
  if (stuck.length === 0) return;
  store.timers.set("dispatch", "", now + DISPATCH_WATCHDOG_MS);
  await dispatcher.send(stuck.map((j) => ({ job_id: j.job_id, attempt: j.attempt + 1 })));
}

/**
 * Calls lost with an earlier instance: each recovers in an invocation of its own, beside the
 * alarm so the deadlines due with it are not held up. Recovered calls become live ones: the
 * heartbeat keeps watching while any call may still be lost.
 */
export function recoverLostCalls(store: ChatStore, executor: Executor, now: number): void {
  const orphans = executor.orphans(now);
  const onFailure = "recovering a call failed; the next heartbeat tries again";
  store.ctx.waitUntil(runOnSelf(store, orphans.map((job_id) => ({ job_id })), { onFailure }));
  if (orphans.length > 0 || executor.hasLive()) store.timers.set("exec", "", now + EXEC_HEARTBEAT_MS);
}
