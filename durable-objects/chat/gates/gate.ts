/**
 * A gate: one reason a pending job may not start yet (`waiting_for`). A gate is two halves:
 * - its rule, in the one ordered list of gates (`GATES`, src/core/gates/order.ts): whether a job must wait
 *   there, whether its deadline runs meanwhile, the order its jobs go in, when its timer is due for
 *   a job that comes to it. Admission (`../jobs/admission.ts`) puts a job at the first gate whose
 *   rule applies; `letGo` below, the one release path, sends a job let go on to the first after its
 *   own. The list sits in `src/`, below every room: admission is a floor below this room and may
 *   not import upwards, so both read the order from there, and no path restates it.
 * - what opens it, a file here, this shape: which of its scopes may let jobs go after a job ends,
 *   and what it lets go when its timer fires. The gates sit above the other rooms: what decides
 *   that a job may go (a subagent slot, a flow slot, an approval) lives in any of them.
 * A new kind of wait is its entry in the list and its file here (and its line in `./index.ts`).
 */
import { GATES, type JobRow, type WaitReason } from "../../../src/core/jobs/job";
import { DISPATCH_WATCHDOG_MS } from "../jobs/batch-rows";
import type { Dispatcher } from "../jobs/dispatcher";
import type { JobMachine } from "../jobs/job-machine";
import type { ChatStore } from "../storage/chat-store";
import type { ActiveCounts } from "../storage/job-columns";
import type { TreeCap } from "../subagents/tree-cap";
import type { Announcer } from "../events/announcer";

/** The parts of the chat a gate may use when it opens. */
export interface GateParts {
  store: ChatStore;
  machine: JobMachine;
  dispatcher: Dispatcher;
  tree: TreeCap;
  announce: Announcer;
}

export interface Gate {
  readonly reason: WaitReason;
  /**
   * A job of the chat ended (inside the transaction that ended it): the scopes of this gate whose
   * waiting jobs may now go, if any. The gate's timer opens each (a fresh invocation: see `open`).
   */
  afterEnd(store: ChatStore, ended: JobRow, active: ActiveCounts): string[];
  /**
   * The gate's timer for `scope` fired: let go of what may start now (each through `letGo`) and
   * dispatch it. Run from the alarm, never from the invocation that ended a job: a sequential tier
   * started from there would chain each call under the one before, and production refuses a chain
   * past 16 (docs/architecture.md#platform-rules).
   */
  open(parts: GateParts, scope: string, now: number): Promise<void>;
}

/**
 * The one release path: `job` leaves its gate, with the tree slot it was given (a subordinate). A
 * gate that held the deadline back starts it now, never past the running turn's; one whose clock
 * ran while the job waited keeps the deadline it had. A call with a gate still ahead in the order
 * (`GATES.after`: one whose rule says it waits there) goes on to wait there; any other may start,
 * and is watched like any started job. True when it may start: the caller dispatches it.
 */
export function letGo(store: ChatStore, job: JobRow, now: number, treeSlot: string | null = null): boolean {
  let deadline = job.deadline_at;
  if (job.waiting_for === null || GATES.rule(job.waiting_for).clock === "from_release") {
    deadline = Math.min(now + job.timeout_seconds * 1000, store.turns.running()?.deadline_at ?? Infinity);
    store.timers.setEarliest("deadline", "", deadline);
  }
  const next = GATES.after(job, now);
  store.jobs.release(job.job_id, deadline, treeSlot, next, now);
  if (next) {
    // Its gate's timer, when its rule sets one: now for a gate that asks at once, else the job's own
    // time. Other gates are opened by what they wait for (an approval by the decision, or it ends at
    // its deadline).
    const due = GATES.dueAt(next, job, now);
    if (due !== undefined) store.timers.setEarliest("gate", next, due);
    return false;
  }
  store.timers.setEarliest("dispatch", "", now + DISPATCH_WATCHDOG_MS);
  return true;
}
