/**
 * How one tool call of an assistant message becomes jobs
 * (docs/api.md#tiered-execution-and-the-tool-calls-route): one job, or a `parallel` group plus the earlier
 * jobs it awaits, collects or cancels.
 */
import { describe, expect, it } from "vitest";
import { planToolCall, specNumbering, type CallPlan } from "../../src/core/jobs/call-plan";
import { configSchema } from "../../src/core/config/schema";
import type { JobSpec, SpecContext } from "../../src/core/jobs/job-spec";
import type { ToolCall } from "../../src/core/calls/normalize-call";
import { toolsForAgent } from "../../src/core/tools/catalog";
import { apiError } from "./fixtures";
import { PatternMeter } from "../../src/core/json-schema/linear-patterns";

const config = configSchema.parse({
  tools: [
    { name: "search", url: "https://tools.example/search", read_only: true },
    { name: "write", url: "https://tools.example/write" },
  ],
  agents: { reader: { tools: ["search"] } },
});
const ctx = (agent = "default"): SpecContext => ({
  config,
  agent,
  available: toolsForAgent(config, agent),
  patterns: new PatternMeter(),
});
const toolCall = (tool_name: string, tool_args: Record<string, unknown> = {}, tool_call_id?: string): ToolCall => ({
  tool_name,
  tool_args: tool_args as ToolCall["tool_args"],
  ...(tool_call_id ? { tool_call_id } : {}),
});

/** Plans a whole message's calls with one numbering, as `/tool-calls` and agent loops do. */
function planMessage(calls: ToolCall[], c: SpecContext = ctx()): CallPlan[] {
  const number = specNumbering();
  return calls.map((call, i) => planToolCall(i, call, c, number));
}

/** The job spec of a plan that must be one job. */
function oneJob(plan: CallPlan | undefined): JobSpec {
  if (plan?.kind !== "job") throw new Error(`expected one job, got ${JSON.stringify(plan)}`);
  return plan.spec;
}
/** The specs of a plan that must be a parallel group. */
function groupSpecs(plan: CallPlan | undefined): JobSpec[] {
  if (plan?.kind !== "parallel") throw new Error(`expected a parallel call, got ${JSON.stringify(plan)}`);
  return plan.specs;
}

describe("an ordinary call", () => {
  it("becomes one job, keeping the call's id, in the sequential tier unless the tool is read-only", () => {
    const [write, search] = planMessage([toolCall("write", { a: 1 }, "call_w"), toolCall("search", { q: "x" })]);
    expect(write).toEqual({
      kind: "job",
      spec: {
        index: 0,
        tool_name: "write",
        tool_call_id: "call_w",
        tool_args: '{"a":1}',
        kind: "tool",
        read_only: false,
        timeout_seconds: 600,
      },
    });
    expect(search).toMatchObject({ kind: "job", spec: { index: 1, tool_name: "search", read_only: true } });
    // Neither is marked concurrent or grouped: tiering decides by read_only alone.
    for (const spec of [oneJob(write), oneJob(search)])
      expect([spec.concurrent, spec.group]).toEqual([undefined, undefined]);
  });

  it("may name `parallel` itself: an unknown tool's error offers it", () => {
    const e = apiError(() => planMessage([toolCall("nope")]));
    expect(e.code).toBe("unknown_tool");
    expect(e.message).toBe(
      "tool_calls[0] uses unknown tool 'nope'. Available tools: parallel, wait, search, write, spawn_task, call_subordinate.",
    );
  });

  it("is checked against the calling agent's tools", () => {
    expect(apiError(() => planMessage([toolCall("write")], ctx("reader"))).code).toBe("unknown_tool");
  });
});

describe("a parallel call", () => {
  it("becomes a group of concurrent jobs named after the call, numbered on from the message's earlier calls", () => {
    const plans = planMessage([
      toolCall("search", { q: "first" }),
      toolCall("parallel", {
        tool_calls: [
          { tool_name: "write", tool_args: { a: 1 } },
          { tool_name: "search", tool_args: { q: "b" } },
        ],
      }),
      toolCall("search", { q: "last" }),
    ]);
    expect([oneJob(plans[0]).index, groupSpecs(plans[1]).map((s) => s.index), oneJob(plans[2]).index]).toEqual([
      0,
      [1, 2],
      3,
    ]);
    expect(plans[1]).toMatchObject({ kind: "parallel", job_ids: [], wait: true, cancel: false });
    // A write tool in the group still starts at once: the group is one call, admitted together.
    expect(
      groupSpecs(plans[1]).map((s) => ({ tool_name: s.tool_name, concurrent: s.concurrent, group: s.group })),
    ).toEqual([
      { tool_name: "write", concurrent: true, group: 1 },
      { tool_name: "search", concurrent: true, group: 1 },
    ]);
  });

  it("is recognised under its other name too", () => {
    const [plan] = planMessage([
      toolCall("parallel_tool_calls", { tool_calls: [{ tool_name: "search", tool_args: {} }] }),
    ]);
    expect(groupSpecs(plan).map((s) => s.tool_name)).toEqual(["search"]);
  });

  it("carries the earlier jobs it names, and whether to wait for them", () => {
    const [awaited, background] = planMessage([
      toolCall("parallel", { job_ids: ["search-AAAAAAAAAAAA"] }),
      toolCall("parallel", {
        tool_calls: [{ tool_name: "search", tool_args: {} }],
        job_ids: ["search-BBBBBBBBBBBB"],
        wait: false,
      }),
    ]);
    expect(awaited).toEqual({
      kind: "parallel",
      specs: [],
      job_ids: ["search-AAAAAAAAAAAA"],
      wait: true,
      cancel: false,
    });
    expect(background).toMatchObject({
      kind: "parallel",
      job_ids: ["search-BBBBBBBBBBBB"],
      wait: false,
      cancel: false,
    });
    expect(groupSpecs(background).map((s) => s.index)).toEqual([0]);
  });

  it("with action cancel starts nothing and answers at once", () => {
    const [plan] = planMessage([toolCall("parallel", { action: "cancel", job_ids: ["search-AAAAAAAAAAAA"] })]);
    expect(plan).toEqual({ kind: "parallel", specs: [], job_ids: ["search-AAAAAAAAAAAA"], wait: false, cancel: true });
  });

  it("offers its members only the tools the call may use, even when narrower than the profile's", () => {
    // As under a spawn_task `tools` subset: the profile has `write`, this chat may not use it.
    const narrowed: SpecContext = { ...ctx(), available: ctx().available.filter((t) => t.name !== "write") };
    const e = apiError(() =>
      planMessage([toolCall("parallel", { tool_calls: [{ tool_name: "write", tool_args: {} }] })], narrowed),
    );
    expect(e.code).toBe("unknown_tool");
    expect(e.message).toBe(
      "tool_calls[0] uses unknown tool 'write'. Available tools: wait, search, spawn_task, call_subordinate.",
    );
  });

  it("refuses what a parallel call cannot hold: a nested parallel, or nothing to do", () => {
    const nested = apiError(() =>
      planMessage([toolCall("parallel", { tool_calls: [{ tool_name: "parallel", tool_args: {} }] })]),
    );
    expect(nested.code).toBe("nested_parallel");
    expect(apiError(() => planMessage([toolCall("parallel", {})])).code).toBe("nothing_to_do");
  });
});

describe("specNumbering", () => {
  it("numbers in one sequence per message, starting again for the next message, leaving the spec it is given as it was", () => {
    const spec: JobSpec = {
      index: 7,
      tool_name: "search",
      tool_args: "{}",
      kind: "tool",
      read_only: true,
      timeout_seconds: 600,
    };
    const first = specNumbering();
    const second = specNumbering();
    expect([first(spec).index, first(spec).index, second(spec).index]).toEqual([0, 1, 0]);
    expect(spec.index).toBe(7);
  });
});
