/**
 * Admission rules for a batch (docs/api.md#validation-order-and-errors,
 * docs/api.md#jobs-and-their-lifecycle): the chat-wide active job cap,
 * job ids, deadlines, and the gate each job waits at first (the first in the one order of the
 * gates, src/core/gates/order.ts, whose rule applies). Pure: the ChatDO calls these inside its one
 * `transactionSync`, with no `await` between the check and the insert.
 */
import { logType } from "../storage/log-rows";
import { nanoid } from "nanoid";
import { ApiError } from "../../../src/core/http/errors";
import { endsByTimer, GATES, jobIdPrefix } from "../../../src/core/jobs/job";
import type { JobSpec } from "../../../src/core/jobs/job-spec";
import type { ChatLimits } from "../../../src/core/jobs/messages";
import type { NewJob } from "../storage/job-columns";
import type { SubordinatePlan } from "../storage/children";
import type { FlowRule } from "../../../src/core/config/flow-rules";
import { planFlow } from "../../../src/core/flow/job-flow";
import type { ApprovalRule } from "../../../src/core/config/approval-rules";
import { approvalRuleFor, requested } from "../../../src/core/approvals/approval";
import type { Budget, BudgetScope } from "../../../src/core/budgets/budget";
import {
  jobTraceInBatch,
  jobTraceUnder,
  type BatchTrace,
  type JobTrace,
} from "../../../src/core/telemetry/trace-context";

const newJobId = (toolName: string) => `${jobIdPrefix(toolName)}-${nanoid(12)}`;

/** Job ids are chosen before admission: a subordinate's id also names its tree slot. */
export const withJobIds = <S extends JobSpec>(specs: S[]): S[] =>
  specs.map((s) => (s.job_id ? s : { ...s, job_id: newJobId(s.tool_name) }));

export function admissionProblem(requested: number, active: number, limits: ChatLimits): ApiError | undefined {
  const limit = limits.max_active_jobs_per_chat;
  if (active + requested <= limit) return undefined;
  return new ApiError(
    429,
    "job_limit",
    `Chat already has ${active} active jobs (limit ${limit}); await or cancel some first.`,
    {
      running: active,
      requested,
      limit,
    },
  );
}

export interface AdmittedBatch {
  batch_id: string;
  jobs: NewJob[];
}

/**
 * The concurrent tier of a tiered batch (docs/api.md#tiered-execution-and-the-tool-calls-route):
 * subordinates, `wait` and
 * read-only tools. Everything else runs afterwards, one at a time in call order.
 */
export const concurrentTier = (spec: JobSpec) =>
  spec.concurrent === true || spec.kind === "subordinate" || endsByTimer(spec) || spec.read_only;

export interface RowOptions {
  chat_id: string;
  /** Hold back the sequential tier (tool-calls, agent loops); `parallel` starts everything at once. */
  tiered: boolean;
  /** No job may outlive this (a child's jobs end with its parent's job). */
  deadlineCap?: number;
  plans: Map<number, SubordinatePlan>;
  /** Subordinates that wait for a slot (`on_subagent_limit: "queue"`): no timers, no tree slot yet. */
  queued?: Set<string>;
  /** The batch's request metadata (compact JSON), on every job. */
  metadata: string | null;
  /** The tenant's flow rules: a call under any of them waits for room before it starts. */
  flow?: readonly FlowRule[];
  /**
   * The budget the batch counts against (docs/api.md#budgets): a top-level batch's own limits, or the
   * scope a subagent's chat inherited from the batch that started it.
   */
  budget?: { limits: Budget } | { inherited: string };
  /** The tenant has a spending limit (`limits.spend`): its calls ask the tenant's spend object as they start. */
  spend?: boolean;
  /** A rerun: the job each spec runs again, in the specs' order (docs/api.md#rerun). */
  rerunOf?: readonly string[];
  /** The calling agent's profile: approval rules and the rules' conditions match on it. */
  agent: string;
  /** The tenant's approval rules: a call under one waits for a person. */
  approvals?: readonly ApprovalRule[];
  /**
   * Admitted inside a subagent: its own subordinates are not counted under flow rules, since their
   * ancestor holds its slot while it waits for them, and counting them could leave both waiting.
   */
  nested?: boolean;
  /**
   * The trace its jobs belong to (docs/api.md#traces): a top-level batch's, or in a child chat the running
   * turn's (the parent job's context); absent when no trace is kept.
   */
  trace?: { batch: BatchTrace } | { turn: JobTrace };
}

/** A new job's trace context: a span of its own under the batch's, or under its turn's. */
const traceOfNewJob = (trace: RowOptions["trace"]): string | null =>
  trace ? JSON.stringify("batch" in trace ? jobTraceInBatch(trace.batch) : jobTraceUnder(trace.turn)) : null;

export function newJobRows(specs: JobSpec[], now: number, o: RowOptions): AdmittedBatch {
  const batch_id = `batch-${nanoid(12)}`;
  const waitsForTier = (spec: JobSpec) => o.tiered && !concurrentTier(spec);
  // A batch of side-effecting calls only has no concurrent tier: its first call goes at once.
  const sequential = specs.filter(waitsForTier);
  const first = sequential.length === specs.length ? Math.min(...sequential.map((s) => s.index)) : undefined;
  const metadata = o.metadata === null ? null : (JSON.parse(o.metadata) as Record<string, unknown>);
  const scope: BudgetScope | undefined =
    o.budget && "limits" in o.budget ? { root_chat: o.chat_id, batch_id, limits: o.budget.limits } : undefined;
  const budget = o.budget ? ("inherited" in o.budget ? o.budget.inherited : JSON.stringify(scope)) : null;
  return {
    batch_id,
    jobs: specs.map((spec, at) => {
      const plan = o.plans.get(spec.index);
      const job_id = spec.job_id ?? newJobId(spec.tool_name);
      const queued = o.queued?.has(job_id) ?? false;
      const counted = !(o.nested && spec.kind === "subordinate");
      // One input for every rule the call meets: their conditions share its evaluation budget.
      const call = {
        tool: spec.tool_name,
        args: JSON.parse(spec.tool_args) as Record<string, unknown>,
        metadata,
        agent: o.agent,
      };
      const flow = counted ? planFlow(o.flow ?? [], call, now) : null;
      const approvalRule = o.approvals ? approvalRuleFor(o.approvals, call) : null;
      const row = {
        job_id,
        log_id: `log-${nanoid(12)}`,
        chat_id: o.chat_id,
        batch_id,
        idx: spec.index,
        tool_name: spec.tool_name,
        tool_call_id: spec.tool_call_id ?? null,
        tool_args: spec.tool_args,
        kind: spec.kind,
        read_only: spec.read_only,
        timeout_seconds: spec.timeout_seconds,
        created_at: now,
        deadline_at: Math.min(now + spec.timeout_seconds * 1000, o.deadlineCap ?? Infinity),
        context_id: plan?.context_id ?? null,
        metadata: o.metadata,
        spec: plan ? JSON.stringify(plan) : null,
        flow: flow ? JSON.stringify(flow) : null,
        // Asked for at once, whichever gate the job waits at first (gates/approval.ts).
        approval: approvalRule ? JSON.stringify(requested(approvalRule, o.agent, now)) : null,
        budget,
        trace: traceOfNewJob(o.trace),
        rerun_of: o.rerunOf?.[at] ?? null,
        spend: o.spend && spec.kind === "tool" && !endsByTimer(spec) ? 1 : null,
        tree_slot: spec.kind === "subordinate" && !queued ? job_id : null,
        log_type: logType({
          tool_name: spec.tool_name,
          kind: spec.kind,
          mcp: spec.kind === "tool" && spec.mcp === true,
        }),
      };
      // The first gate, in the one order of the gates, whose rule says the job waits there.
      const atAdmission = { waitsForTier: waitsForTier(spec) && spec.index !== first, queued };
      return { ...row, waiting_for: GATES.first({ ...row, atAdmission }, now) };
    }),
  };
}
