/** Where an admitted batch's jobs start (durable-objects/chat/jobs/admission.ts): at once, or waiting at a gate. */
import { describe, expect, it } from "vitest";
import { newJobRows } from "../../durable-objects/chat/jobs/admission";
import type { JobSpec } from "../../src/core/jobs/job-spec";

const call = (index: number, read_only: boolean, over: Partial<JobSpec> = {}): JobSpec =>
  ({
    index,
    job_id: `job-${index}`,
    tool_name: read_only ? "search" : "send",
    tool_args: "{}",
    kind: "tool",
    read_only,
    timeout_seconds: 60,
    ...over,
  }) as JobSpec;
const rows = (specs: JobSpec[], tiered: boolean, queued = new Set<string>()) =>
  newJobRows(specs, 1_000, {
    chat_id: "c",
    agent: "default",
    tiered,
    plans: new Map(),
    queued,
    metadata: null,
  }).jobs.map((j) => [j.idx, j.waiting_for]);

describe("where a batch's jobs start", () => {
  it("on a tiered path: reads at once, writes waiting for their tier", () => {
    expect(rows([call(0, false), call(1, true), call(2, false)], true)).toEqual([
      [0, "tier"],
      [1, null],
      [2, "tier"],
    ]);
  });

  it("on a tiered path with no concurrent tier: the first write at once, the others waiting", () => {
    expect(rows([call(0, false), call(1, false), call(2, false)], true)).toEqual([
      [0, null],
      [1, "tier"],
      [2, "tier"],
    ]);
  });

  it("in a `parallel` batch: everything at once", () => {
    expect(rows([call(0, false), call(1, false)], false)).toEqual([
      [0, null],
      [1, null],
    ]);
  });

  it("a subordinate over the cap waits for a slot, whatever the path", () => {
    const sub = call(0, false, { kind: "subordinate", job_id: "sub-1" } as Partial<JobSpec>);
    expect(rows([sub, call(1, false)], true, new Set(["sub-1"]))).toEqual([
      [0, "subagent_slot"],
      [1, "tier"],
    ]);
  });
});

describe("which jobs a flow rule counts", () => {
  const rules = [{ name: "subs", tools: ["spawn_task"], concurrency: 1, on_limit: "queue" as const, max_queued: 1000 }];
  const sub = (index: number): JobSpec =>
    ({ ...call(index, false), tool_name: "spawn_task", kind: "subordinate" }) as JobSpec;
  const flowOf = (nested: boolean) =>
    newJobRows([sub(0)], 1_000, {
      chat_id: "c",
      agent: "default",
      tiered: false,
      plans: new Map(),
      metadata: null,
      flow: rules,
      nested,
    }).jobs.map((j) => [j.waiting_for, j.flow !== null]);

  it("counts a top-level chat's subordinates, not a subagent's own (they would wait for the slot their ancestor holds)", () => {
    expect(flowOf(false)).toEqual([["flow", true]]);
    expect(flowOf(true)).toEqual([[null, false]]);
  });
});

describe("the gate a job waits at first", () => {
  const approvals = [{ tools: ["send"], agents: ["*"], timeout_seconds: 600 }];
  const flow = [{ name: "sends", tools: ["send"], concurrency: 1, on_limit: "queue" as const, max_queued: 10 }];
  const first = (tiered: boolean, o: object) =>
    newJobRows([call(0, true), call(1, false)], 1_000, {
      chat_id: "c",
      agent: "default",
      tiered,
      plans: new Map(),
      metadata: null,
      ...o,
    }).jobs.map((j) => [j.idx, j.waiting_for]);

  it("is its tier's turn, whatever else it is under (its approval is still asked at once)", () => {
    expect(first(true, { approvals, flow, budget: { limits: { tool_calls: 5 } } })).toEqual([
      [0, "budget"],
      [1, "tier"],
    ]);
  });

  it("is a person's approval before flow and the budget, flow before the budget", () => {
    expect(first(false, { approvals, flow, budget: { limits: { tool_calls: 5 } } })).toEqual([
      [0, "budget"],
      [1, "approval"],
    ]);
    expect(first(false, { flow, budget: { limits: { tool_calls: 5 } } })).toEqual([
      [0, "budget"],
      [1, "flow"],
    ]);
  });
});
