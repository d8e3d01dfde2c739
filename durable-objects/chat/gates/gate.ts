/**
 * A gate: one reason a pending job may not start yet (`waiting_for`). Every gate is this shape, and
 * every job leaves its gate by `letGo`, the one release path: a new kind of wait is one new file
 * here and its reason in `WAIT_REASONS`. The gates sit above the other rooms: what decides that a
 * job may go (a subagent slot, later a flow slot or an approval) lives in any of them.
 */
import { WAIT_REASONS, type JobRow, type WaitReason } from "../../../src/jobs/job";
import { DISPATCH_WATCHDOG_MS } from "../jobs/batch-rows";
import type { Dispatcher } from "../jobs/dispatcher";
import type { JobMachine } from "../jobs/job-machine";
import type { ChatStore } from "../storage/chat-store";
import type { ActiveCounts } from "../storage/job-columns";
import type { TreeCap } from "../subagents/tree-cap";
import type { Announcer } from "../events/announcer";
import { awaitsDecision } from "../../../src/approvals/approval";

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
 * The gate a job waits at once the one it waits at lets it go, in order: a subagent slot or its
 * tier's turn, then a person's approval while undecided, then room under the flow rules, then the
 * batch's budget.
 */
function nextGate(job: JobRow): WaitReason | null {
  const passed = job.waiting_for;
  if (passed !== "approval" && passed !== "flow" && passed !== "budget" && awaitsDecision(job)) return "approval";
  if (passed !== "flow" && passed !== "budget" && job.flow !== null) return "flow";
  if (passed !== "budget" && job.budget !== null) return "budget";
  return null;
}

/**
 * The one release path: `job` leaves its gate, with the tree slot it was given (a subordinate). A
 * gate that held the deadline back starts it now, never past the running turn's; one whose clock
 * ran while the job waited keeps the deadline it had. A call with a gate still ahead goes on to wait
 * there (`nextGate`); any other may start, and is watched like any started job. True when it may
 * start: the caller dispatches it.
 */
export function letGo(store: ChatStore, job: JobRow, now: number, treeSlot: string | null = null): boolean {
  let deadline = job.deadline_at;
  if (job.waiting_for === null || WAIT_REASONS[job.waiting_for].clock === "from_release") {
    deadline = Math.min(now + job.timeout_seconds * 1000, store.turns.running()?.deadline_at ?? Infinity);
    store.timers.setEarliest("deadline", "", deadline);
  }
  const next = nextGate(job);
  store.jobs.release(job.job_id, deadline, treeSlot, next);
  if (next === "flow" || next === "budget") store.timers.set("gate", next, now);
  if (next) return false; // an approval is let go by the decision, or ends at its deadline
  store.timers.setEarliest("dispatch", "", now + DISPATCH_WATCHDOG_MS);
  return true;
}
