/**
 * The jobs' duties the alarm runs: deadlines, the dispatch watchdog and the
 * heartbeat that recovers calls whose runner was lost. Each is
 * idempotent and sets its own next run, so an alarm that fires twice, or late,
 * does the right thing.
 */
import type { ChatStore } from "../storage/chat-store";
import { DISPATCH_WATCHDOG_MS } from "./batch-rows";
import type { Dispatcher } from "./dispatcher";
import { EXEC_HEARTBEAT_MS } from "../storage/timers";
import type { JobMachine } from "./job-machine";

/**
 * One timer for the chat, at its earliest deadline: every job past its deadline ends, then the timer moves to
 * the next.
 */
export function expirePastDeadline(store: ChatStore, machine: JobMachine, now: number): void {
  for (const job of store.jobs.pastDeadline(now)) machine.expire(job, now);
  const next = store.jobs.nextDeadline();
  if (next !== undefined) store.timers.set("deadline", "", next);
}

/**
 * One watchdog for the chat: every job that should have started and has not gets its queue copy again; one
 * that did start absorbs it.
 */
export async function redispatchStuck(store: ChatStore, dispatcher: Dispatcher, now: number): Promise<void> {
  const stuck = store.jobs.undispatched();
  if (stuck.length === 0) return;
  store.timers.set("dispatch", "", now + DISPATCH_WATCHDOG_MS);
  await dispatcher.send(stuck.map((j) => ({ job_id: j.job_id, attempt: j.attempt + 1 })));
}

/**
 * The heartbeat (`Dispatcher.recoverLost`): calls whose runner was lost are recovered, and it keeps
 * watching while any runner's lease may still lapse.
 */
export function recoverLostCalls(store: ChatStore, dispatcher: Dispatcher, now: number): void {
  if (dispatcher.recoverLost(now)) store.timers.set("exec", "", now + EXEC_HEARTBEAT_MS);
}
