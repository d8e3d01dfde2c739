/**
 * The jobs' duties the alarm runs: deadlines, the dispatch watchdog and the
 * heartbeat that recovers calls lost with an earlier instance. Each is
 * idempotent and sets its own next run, so an alarm that fires twice, or late,
 * does the right thing.
 */
import type { ChatStore } from "../storage/chat-store";
import { DISPATCH_WATCHDOG_MS } from "./batch-rows";
import type { Dispatcher } from "./dispatcher";
import type { Executor } from "./executor";
import { EXEC_HEARTBEAT_MS } from "../storage/timers";
import type { JobMachine } from "./job-machine";

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
 * Calls lost with an earlier instance, or with a lane (the lanes are asked first): each is placed
 * again like a new call, beside the alarm so the deadlines due with it are not held up. Recovered
 * calls become live ones: the heartbeat keeps watching while any call may still be lost.
 */
export async function recoverLostCalls(store: ChatStore, executor: Executor, dispatcher: Dispatcher, now: number): Promise<void> {
  await dispatcher.checkLanes(now);
  const orphans = executor.orphans(now);
  if (orphans.length > 0) store.ctx.waitUntil(dispatcher.launch(store.jobs.many(orphans), "recovering a call failed; the next heartbeat tries again"));
  const inLanes = store.jobs.running().some((j) => j.lane !== null); // a lane may hold them, whatever this instance knows
  if (orphans.length > 0 || executor.hasLive() || inLanes) store.timers.set("exec", "", now + EXEC_HEARTBEAT_MS);
}
