/**
 * The gates a pending job may wait at before its call leaves (`waiting_for`,
 * docs/architecture.md#gates), in the one order a job passes them: the list below, read by
 * admission (`durable-objects/chat/jobs/admission.ts`: a job waits first at the first gate whose
 * rule applies) and by the one release path (`letGo` in `durable-objects/chat/gates/gate.ts`: a
 * job let go goes on to the first gate after its own whose rule applies). Each entry is a gate's
 * pure rule: its reason (the wire value), whether the job's deadline runs while it waits, the
 * order its jobs go in, whether a job must wait there, and when the gate's timer is due for a job
 * that comes to it. What opens a gate lives in the chat's `gates/` room, a file each; that room
 * sits above admission (what lets a job go may live in any room below), so the rules live here,
 * below both. A new reason to wait is its entry here and its file there.
 */
import { awaitsDecision } from "../approvals/approval";

/**
 * What a gate's rule reads of a job: its row as admission builds it or as the chat stores it, and,
 * at admission only, what its batch decided of it. The tier and the subagent queue are decided by
 * the batch (its tiers, the caps), so their rules read that; a job never comes back to them.
 */
export interface GateJob {
  job_id: string;
  batch_id: string;
  idx: number;
  tool_name: string;
  tool_args: string;
  kind: "tool" | "subordinate";
  timeout_seconds: number;
  created_at: number;
  deadline_at: number;
  metadata: string | null;
  flow: string | null;
  approval: string | null;
  budget: string | null;
  /** 1: a call under the tenant's spending limit (`limits.spend`); else null. */
  spend?: number | null;
  atAdmission?: {
    /** A call of its batch's sequential tier that waits for the calls before it. */
    waitsForTier: boolean;
    /** A subordinate over the cap, queued for a slot (`on_subagent_limit: "queue"`). */
    queued: boolean;
  };
}

export interface GateRule<R extends string = string> {
  readonly reason: R;
  /** Whether the job's deadline starts when its gate lets it go, or counts from its acceptance, the wait included. */
  readonly clock: "from_release" | "from_acceptance";
  /**
   * The order its waiting jobs go in: their call order within their batch, or their arrival across the chat
   * (a `wait_seq`, given at admission).
   */
  readonly order: "call" | "arrival";
  /** Whether the job must wait here, at `now`. */
  applies(job: GateJob, now: number): boolean;
  /**
   * When the gate's `gate` timer (ref: its reason) is due for a job that comes to wait here:
   * `at_once` for a gate whose calls ask an object (a new batch asks beside its answer, and the timer,
   * a moment later, is the backup of that ask), or a time of the job's own. None: something else
   * opens the gate (a job's end, a person's decision).
   */
  readonly due?: "at_once" | ((job: GateJob) => number);
}

const gate = <const R extends string>(rule: GateRule<R>): GateRule<R> => rule;

/** The gates, in the order a job passes them. */
const BUILT_IN = [
  gate({
    /**
     * The sequential tier of a tiered batch waits for the calls before it
     * (docs/api.md#tiered-execution-and-the-tool-calls-route).
     */
    reason: "tier",
    clock: "from_release",
    order: "call",
    applies: (job) => job.atAdmission?.waitsForTier === true,
  }),
  gate({
    /**
     * A subordinate over the cap waits for a slot (`on_subagent_limit: "queue"`). Never a call of a tier: the
     * two do not meet.
     */
    reason: "subagent_slot",
    clock: "from_release",
    order: "arrival",
    applies: (job) => job.atAdmission?.queued === true,
  }),
  gate({
    /**
     * A call under an approval rule waits for a person's decision (docs/api.md#approvals); its deadline
     * starts at the approval. It is asked about at admission whichever gate holds it first, so the
     * person sees every call of a batch at once; it waits here once those gates let it go.
     */
    reason: "approval",
    clock: "from_release",
    order: "call",
    applies: (job) => awaitsDecision(job),
  }),
  gate({
    /**
     * A call under flow rules waits for room under every one of them (docs/api.md#flow-control); its deadline
     * counts the wait.
     */
    reason: "flow",
    clock: "from_acceptance",
    order: "call",
    applies: (job) => job.flow !== null,
    due: "at_once",
  }),
  gate({
    /**
     * A call of a batch with a budget: the budget is asked for it as it starts (a moment)
     * (docs/api.md#budgets).
     */
    reason: "budget",
    clock: "from_acceptance",
    order: "call",
    applies: (job) => job.budget !== null,
    due: "at_once",
  }),
  gate({
    /**
     * A call of a tenant with a spending limit (docs/api.md#spending-limits): the tenant's spend object is
     * asked for it as it starts, after its batch's budget. The last gate.
     */
    reason: "spend",
    clock: "from_acceptance",
    order: "call",
    applies: (job) => job.spend === 1,
    due: "at_once",
  }),
];

/** Why a pending job may not start yet: the wire's `waiting_for`. */
export type WaitReason = (typeof BUILT_IN)[number]["reason"];
/** The reasons in gate order, for the API schema's enum. */
export const waitReasons = BUILT_IN.map((g) => g.reason) as [WaitReason, ...WaitReason[]];

/** An ordered list of gates, and the two questions every path asks of it. */
export class GateOrder<R extends string> {
  #rules: GateRule[];

  constructor(rules: readonly GateRule<R>[]) {
    this.#rules = [...rules];
  }

  /** The reasons, in order. */
  get reasons(): R[] {
    return this.#rules.map((r) => r.reason as R);
  }

  rule(reason: R): GateRule<R> {
    const found = this.#rules.find((r) => r.reason === reason);
    if (!found)
      throw new Error(`No gate '${reason}': a job waits only at a gate of the list in src/core/gates/order.ts.`);
    return found as GateRule<R>;
  }

  /**
   * When `reason`'s gate timer is due for `job`, which comes to wait there (its rule's `due`):
   * `soonest` for a gate that asks at once, the job's own time for one that has it; undefined when
   * something else opens the gate.
   */
  dueAt(reason: R, job: GateJob, soonest: number): number | undefined {
    const due = this.rule(reason).due;
    return due === "at_once" ? soonest : due?.(job);
  }

  /** Where an admitted job waits first: the first gate whose rule applies, or null to start at once. */
  first(job: GateJob, now: number): R | null {
    return this.#from(0, job, now);
  }

  /**
   * Where a job goes on to once its gate (`waiting_for`) lets it go: the first gate after it whose rule
   * applies, or null to start.
   */
  after(job: GateJob & { waiting_for: R | null }, now: number): R | null {
    const passed = job.waiting_for === null ? -1 : this.#rules.indexOf(this.rule(job.waiting_for));
    return this.#from(passed + 1, job, now);
  }

  /**
   * Puts a gate defined outside the list in its place, just before `before`, until the returned
   * function takes it out: admission, the release path and the rows' timers treat it like any
   * other. For trying a gate out (a test's): its reason is not a `WaitReason`, the wire's list,
   * which a gate of production's joins by its entry above.
   */
  add(rule: GateRule, place: { before: R }): () => void {
    if (this.#rules.some((r) => r.reason === rule.reason))
      throw new Error(`A gate '${rule.reason}' is already in the order.`);
    this.#rules.splice(this.#rules.indexOf(this.rule(place.before)), 0, rule);
    return () => {
      this.#rules = this.#rules.filter((r) => r !== rule);
    };
  }

  #from(index: number, job: GateJob, now: number): R | null {
    for (const rule of this.#rules.slice(index)) if (rule.applies(job, now)) return rule.reason as R;
    return null;
  }
}

/** The one order of the gates. */
export const GATES = new GateOrder<WaitReason>(BUILT_IN);
