/**
 * A model reply's tool calls as an agent loop step starts them (docs/api.md#the-agent-loop): each
 * becomes job specs, numbered in one sequence for the whole step, or an error entry the model reads.
 */
import { ApiError } from "../../../src/core/http/errors";
import { planToolCall, specNumbering, type CallPlan } from "../../../src/core/jobs/call-plan";
import { InvalidToolCall, normalizeToolCall } from "../../../src/core/calls/normalize-call";
import type { TenantConfig } from "../../../src/core/config/schema";
import { PatternMeter } from "../../../src/core/json-schema/linear-patterns";
import { toolsForAgent } from "../../../src/core/tools/catalog";
import type { McpListings } from "../../../src/core/tools/mcp";
import { withJobIds } from "../jobs/admission";

/** Who the child is: what its step may call. */
export interface ChildIdentity {
  level: number;
  profile: string;
  /** spawn_task `tools`: the subset of the profile's tools this child may use. */
  tools?: string[];
}

/** How one tool call of a model reply is answered: its planned jobs, or an error the model will read. */
export type StepCall = CallPlan | { kind: "error"; content: string };

/**
 * Turns each tool call of a model reply into job specs (numbered in one
 * sequence for the whole step), or an error entry the model will read.
 */
export function planCalls(
  calls: { id: string; name: string; arguments: string }[],
  config: TenantConfig,
  who: ChildIdentity,
  mcp: McpListings,
) {
  const available = toolsForAgent(config, who.profile, mcp).filter(
    (t) => !who.tools || t.kind === "wait" || who.tools.includes(t.name),
  );
  // One model reply is one request's worth of checks: its calls share one pattern meter.
  const ctx = {
    config,
    agent: who.profile,
    available,
    mcp,
    level: who.level,
    toolBound: who.tools,
    patterns: new PatternMeter(),
  };
  const number = specNumbering();
  const plans = calls.map((call, callIndex): StepCall => {
    try {
      // As the model sent it: its job keeps the call's id (docs/api.md#arguments-and-call-shapes).
      const asSent = { id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } };
      const plan = planToolCall(callIndex, normalizeToolCall(asSent), ctx, number);
      if (plan.kind === "parallel" && plan.cancel) {
        throw new InvalidToolCall(
          "inside an agent loop, stop jobs by finishing without them; `cancel` is not available here",
        );
      }
      return plan;
    } catch (e) {
      if (e instanceof ApiError || e instanceof InvalidToolCall)
        return { kind: "error", content: `Error: ${e.message}` };
      throw e;
    }
  });
  // Ids first: the tree reservation and the admission that follows must name the same jobs.
  const specs = withJobIds(plans.flatMap((p) => (p.kind === "job" ? [p.spec] : p.kind === "parallel" ? p.specs : [])));
  return { specs, plans };
}

/**
 * spawn_task without `wait: true`, and `parallel` with `wait: false`, answer at once; the jobs run in the
 * background.
 */
export const inBackground = (plan: CallPlan) =>
  plan.kind === "parallel"
    ? !plan.wait
    : plan.spec.kind === "subordinate" && plan.spec.sub.tool === "spawn_task" && plan.spec.sub.wait !== true;
