/**
 * The chat's one alarm (docs/architecture.md#the-alarm-and-its-timers): every duty is a row in
 * `timers`, and each kind maps to the handler its room exports. Handlers run
 * one by one, each on its own: one that throws is logged and put off, the
 * others still run, and the alarm is re-armed whatever happened. Production
 * drops an alarm that throws 6 times in a row, which would stop every
 * deadline and delivery of the chat behind one failing handler.
 */
import type { Chat } from "./chat";
import { openGate } from "./gates";
import { expirePastDeadline, recoverLostCalls, redispatchStuck } from "./jobs/job-timers";
import { JOB_WATCH, type Timer, type TimerKind } from "./storage/timers";
import { REGISTER_RETRY_MS } from "./registration";

/** A timer whose handler threw runs again this much later. */
export const FAILED_TIMER_RETRY_MS = 10_000;

/** "forgotten": the chat was found empty and wiped; nothing of it may be touched after. */
type TimerHandler = (chat: Chat, timer: Timer, now: number) => void | "forgotten" | Promise<void | "forgotten">;

/**
 * A job watch due in a chat with no active job has nothing to watch, and neither have the other
 * two: all three go. That happens to a busy chat's armed watches once it goes idle, and to parked
 * ones (see `JOB_WATCH`) when the alarm fires for another timer.
 */
const whileActive =
  (handler: TimerHandler): TimerHandler =>
  (chat, timer, now) => {
    if (chat.store.jobs.activeCount() > 0) return handler(chat, timer, now);
    for (const kind of JOB_WATCH) chat.store.timers.clear(kind, "");
  };

const HANDLERS: Record<TimerKind, TimerHandler> = {
  deadline: whileActive(({ store, machine }, _t, now) => expirePastDeadline(store, machine, now)),
  wait_done: ({ machine }, t, now) => machine.finishWait(t.ref, now),
  dispatch: whileActive(({ store, dispatcher }, _t, now) => redispatchStuck(store, dispatcher, now)),
  exec: whileActive(({ store, dispatcher }, _t, now) => recoverLostCalls(store, dispatcher, now)),
  gate: (chat, t, now) => openGate(chat, t.ref, now),
  agent: ({ child }, t, now) => child.onAgentTimer(t.ref, now),
  report: ({ child }, t) => child.report(t.ref),
  idle: ({ child }, t, now) => child.checkIdle(t.ref, now),
  deliver: ({ outbox }, _t, now) => outbox.onDeliverTimer(now),
  register: ({ store, registration }, _t, now) => {
    store.timers.set("register", "", now + REGISTER_RETRY_MS); // until it lands
    store.ctx.waitUntil(registration.register(Number(store.meta("created_at") ?? now)));
  },
  purge: async ({ store, registration }, _t, now) => {
    if (store.purge(now) === "kept") return;
    await registration.forget();
    return "forgotten";
  },
  // Set only while a deletion runs, and that alarm goes to the deletion (below): a stray one is dropped.
  delete: () => {},
};

export async function runAlarm(chat: Chat): Promise<void> {
  const { store } = chat;
  store.timers.forgetAlarm();
  if (!store.exists()) return;
  // A chat being deleted runs nothing but its deletion.
  if (store.beingDeleted()) return chat.deletion.alarm();
  const now = Date.now();
  try {
    for (const timer of store.timers.due(now)) {
      try {
        if ((await HANDLERS[timer.kind](chat, timer, now)) === "forgotten") return;
        store.timers.done(timer);
      } catch (e) {
        console.warn("a timer failed; it runs again later", timer.kind, timer.ref, (e as Error).message);
        store.timers.postpone(timer, now + FAILED_TIMER_RETRY_MS);
      }
    }
  } finally {
    if (store.exists()) await store.timers.arm();
  }
}
