/**
 * How one tool call of an assistant message becomes jobs
 * (docs/api.md#tiered-execution-and-the-tool-calls-route), shared
 * by `/tool-calls` and agent loops: an ordinary call is one job; a `parallel`
 * call is a group of jobs in the concurrent tier, admitted together or not at
 * all, plus the earlier jobs it awaits, collects or cancels.
 */
import type { ToolCall } from "../calls/normalize-call";
import { parseParallel } from "./parallel-command";
import { PARALLEL_NAMES } from "../tools/builtins";
import { jobSpec, type JobSpec, type SpecContext } from "./job-spec";

export interface ParallelCall {
  specs: JobSpec[];
  /** Earlier jobs of this chat the call names. */
  job_ids: string[];
  /** `false`: answered at once with the started payload; its jobs run in the background. */
  wait: boolean;
  cancel: boolean;
}

export type CallPlan = { kind: "job"; spec: JobSpec } | ({ kind: "parallel" } & ParallelCall);

/** Plans call `index` of a message; its specs are numbered by `number`, once for the whole message. Throws ApiError. */
export function planToolCall(
  index: number,
  call: ToolCall,
  ctx: SpecContext,
  number: (spec: JobSpec) => JobSpec,
): CallPlan {
  // Here, unlike inside `parallel`, `parallel` itself is a tool the call could have named.
  if (!PARALLEL_NAMES.has(call.tool_name))
    return { kind: "job", spec: number(jobSpec(index, call, { ...ctx, parallelCallable: true })) };
  const command = parseParallel(call.tool_args, ctx.config, ctx.agent, ctx);
  return {
    kind: "parallel",
    specs: command.jobs.map((j) => number({ ...j, concurrent: true, group: index })),
    job_ids: command.job_ids,
    wait: command.wait,
    cancel: command.action === "cancel",
  };
}

/** Numbers specs in one sequence across a message's calls (job rows are keyed by it). */
export function specNumbering(): (spec: JobSpec) => JobSpec {
  let next = 0;
  return (spec) => ({ ...spec, index: next++ });
}
