/**
 * The tiered paths (`/tool-calls`, agent loops) admit one message's calls one
 * by one, in call order: a call refused by a cap, a permission or the depth
 * gets its own error, the others still run, and a `parallel` call's group is
 * admitted whole or not at all. Pure: it runs inside the caller's transaction.
 */
import { ApiError } from "../../../src/core/http/errors";
import type { JobSpec } from "../../../src/core/jobs/job-spec";
import type { Caller, ChatLimits } from "../../../src/core/jobs/messages";
import type { ChildRow, SubordinatePlan } from "../storage/children";
import type { TreeAllowance } from "../storage/tree-slots";
import { admissionProblem } from "../jobs/admission";
import { SubagentCap } from "./subagent-cap";
import { planSubordinates, type SubordinateState } from "./subordinates";

export interface InOrderAdmission {
  admitted: JobSpec[];
  plans: Map<number, SubordinatePlan>;
  /**
   * Calls refused by a cap, a permission or the depth: each gets its own error entry
   * (docs/api.md#caps-permissions-and-depth).
   */
  refusals: Map<number, ApiError>;
  /** Admitted subordinates that wait for a slot. */
  queued: Set<string>;
}

/**
 * Tiered paths (`/tool-calls`, agent loops) admit calls one by one in call
 * order: a refused call becomes an error entry and the others still run.
 */
export function admitInOrder(
  specs: JobSpec[],
  state: SubordinateState,
  activeJobs: number,
  limits: ChatLimits,
  caller: Caller,
  tree: TreeAllowance,
): InOrderAdmission {
  const result: InOrderAdmission = { admitted: [], plans: new Map(), refusals: new Map(), queued: new Set() };
  const cap = new SubagentCap({
    running: state.runningJobIds,
    queued: state.queued,
    tree,
    limits,
    queueOnTree: state.level === 0,
  });
  const busy = new Set(state.busyContexts);
  // A "continue the latest child" call planned earlier in this batch is the latest for the next one.
  let latest: ChildRow | undefined;
  const children = {
    get: (id: string) => state.children.get(id),
    latestDefault: () => latest ?? state.children.latestDefault(),
  };
  for (const spec of specs) {
    try {
      const overCap = admissionProblem(result.admitted.length + 1, activeJobs, limits);
      if (overCap) throw overCap;
      if (spec.kind === "subordinate") {
        const plan = planSubordinates([spec], { ...state, children, busyContexts: busy }, limits, caller).get(
          spec.index,
        )!;
        if (cap.admit(spec.job_id!) === "queue") result.queued.add(spec.job_id!);
        result.plans.set(spec.index, plan);
        busy.add(plan.context_id);
        if (spec.sub.mode === "latest")
          latest = { context_id: plan.context_id, tool: "call_subordinate", profile: plan.profile, name: plan.name };
      }
      result.admitted.push(spec);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      result.refusals.set(spec.index, e);
    }
  }
  return dropBrokenGroups(specs, result);
}

/**
 * A `parallel` call inside a loop is atomic (docs/api.md#validation-order-and-errors): one refused call
 * refuses its whole group.
 */
export function dropBrokenGroups(specs: JobSpec[], result: InOrderAdmission): InOrderAdmission {
  const broken = new Map<number, ApiError>();
  for (const spec of specs) {
    const refusal = result.refusals.get(spec.index);
    if (spec.group !== undefined && refusal && !broken.has(spec.group)) broken.set(spec.group, refusal);
  }
  if (broken.size === 0) return result;
  for (const spec of specs) {
    if (spec.group === undefined || !broken.has(spec.group)) continue;
    result.refusals.set(spec.index, result.refusals.get(spec.index) ?? broken.get(spec.group)!);
    result.plans.delete(spec.index);
  }
  result.admitted = result.admitted.filter((s) => s.group === undefined || !broken.has(s.group));
  const kept = new Set(result.admitted.map((s) => s.job_id));
  for (const id of result.queued) if (!kept.has(id)) result.queued.delete(id);
  return result;
}
