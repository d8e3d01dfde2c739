/**
 * The one order of the gates (src/core/gates/order.ts): where admission puts a job first, and where a
 * job goes on to when its gate lets it go. Both read the same list.
 */
import { describe, expect, it } from "vitest";
import { GATES, GateOrder, type GateJob, type GateRule } from "../../src/core/gates/order";
import type { WaitReason } from "../../src/core/jobs/job";
import { T0 } from "./fixtures";

const undecided = JSON.stringify({ agent: "default", timeout_seconds: 600, expires_at: T0 + 600_000 });
const approved = JSON.stringify({
  agent: "default",
  timeout_seconds: 600,
  expires_at: T0 + 600_000,
  decision: "approve",
  decided_at: T0,
});
const flow = JSON.stringify({ holds: [{ rule: "r", key: "" }], rules: {} });
const budget = JSON.stringify({ root_chat: "c", batch_id: "b", limits: { tool_calls: 5 } });

const job = (over: Partial<GateJob> = {}): GateJob => ({
  job_id: "send-1",
  batch_id: "batch-1",
  idx: 0,
  tool_name: "send",
  tool_args: "{}",
  kind: "tool",
  timeout_seconds: 60,
  created_at: T0,
  deadline_at: T0 + 60_000,
  metadata: null,
  flow: null,
  approval: null,
  budget: null,
  ...over,
});
const admitted = (over: Partial<GateJob["atAdmission"]> = {}) => ({
  atAdmission: { waitsForTier: false, queued: false, ...over },
});
const at = (waiting_for: WaitReason | null, over: Partial<GateJob> = {}) => ({ ...job(over), waiting_for });

describe("the order of the gates", () => {
  it("is a subagent slot or the tier's turn, then a person's approval, then flow, the budget, the tenant's spend", () => {
    expect(GATES.reasons).toEqual(["tier", "subagent_slot", "approval", "flow", "budget", "spend"]);
  });

  it("says of each gate whether its deadline runs while a job waits, and in what order its jobs go", () => {
    expect(GATES.reasons.map((r) => [r, GATES.rule(r).clock, GATES.rule(r).order])).toEqual([
      ["tier", "from_release", "call"],
      ["subagent_slot", "from_release", "arrival"],
      ["approval", "from_release", "call"],
      ["flow", "from_acceptance", "call"],
      ["budget", "from_acceptance", "call"],
      ["spend", "from_acceptance", "call"],
    ]);
  });
});

describe("a gate's timer for a job that comes to it", () => {
  it("is due at once for flow, the budget and the spend, whose calls ask an object; the others are opened by what they wait for", () => {
    expect(GATES.reasons.map((r) => [r, GATES.dueAt(r, job(), T0 + 2_000)])).toEqual([
      ["tier", undefined],
      ["subagent_slot", undefined],
      ["approval", undefined],
      ["flow", T0 + 2_000],
      ["budget", T0 + 2_000],
      ["spend", T0 + 2_000],
    ]);
  });
});

describe("where admission puts a job", () => {
  it("at its tier's turn or in the subagent queue first, as its batch decided, whatever else it is under", () => {
    const under = { approval: undecided, flow, budget };
    expect(GATES.first(job({ ...under, ...admitted({ waitsForTier: true }) }), T0)).toBe("tier");
    expect(GATES.first(job({ ...under, kind: "subordinate", ...admitted({ queued: true }) }), T0)).toBe(
      "subagent_slot",
    );
  });

  it("then at a person's approval, then at flow, then at the budget: the first whose rule applies", () => {
    expect(GATES.first(job({ approval: undecided, flow, budget, ...admitted() }), T0)).toBe("approval");
    expect(GATES.first(job({ flow, budget, ...admitted() }), T0)).toBe("flow");
    expect(GATES.first(job({ budget, ...admitted() }), T0)).toBe("budget");
  });

  it("nowhere when nothing holds it: it starts at once", () => {
    expect(GATES.first(job(admitted()), T0)).toBeNull();
  });
});

describe("where a job let go goes on to", () => {
  it("to the first gate after its own whose rule applies, never back", () => {
    const all = { approval: undecided, flow, budget };
    expect(GATES.after(at("tier", all), T0)).toBe("approval");
    expect(GATES.after(at("subagent_slot", all), T0)).toBe("approval");
    expect(GATES.after(at("approval", all), T0)).toBe("flow");
    expect(GATES.after(at("flow", all), T0)).toBe("budget");
    expect(GATES.after(at("budget", all), T0)).toBeNull();
    expect(GATES.after(at("budget", { ...all, spend: 1 }), T0)).toBe("spend");
    expect(GATES.after(at("spend", { ...all, spend: 1 }), T0)).toBeNull();
  });

  it("past an approval decided while it waited at an earlier gate", () => {
    expect(GATES.after(at("tier", { approval: approved, flow }), T0)).toBe("flow");
    expect(GATES.after(at("tier", { approval: approved }), T0)).toBeNull();
  });

  it("never to the tier or the subagent queue: only admission decides those", () => {
    expect(GATES.after(at(null, { budget }), T0)).toBe("budget");
    expect(GATES.after(at(null), T0)).toBeNull();
  });
});

describe("a gate put in the order", () => {
  const notBefore: GateRule = {
    reason: "not_before",
    clock: "from_release",
    order: "call",
    applies: (_job, now) => now < T0 + 1_000,
  };

  it("is asked in its place by admission and release alike, until taken out", () => {
    const order = new GateOrder<WaitReason>(GATES.reasons.map((r) => GATES.rule(r)));
    const takeOut = order.add(notBefore, { before: "flow" });
    expect(order.reasons).toEqual(["tier", "subagent_slot", "approval", "not_before", "flow", "budget", "spend"]);
    expect(order.first(job({ flow, ...admitted() }), T0)).toBe("not_before");
    expect(order.first(job({ flow, ...admitted() }), T0 + 1_000)).toBe("flow"); // its time has come: it is passed by
    expect(order.after(at("approval", { flow }), T0)).toBe("not_before");
    expect(order.after({ ...job({ flow }), waiting_for: "not_before" as WaitReason }, T0)).toBe("flow");
    takeOut();
    expect(order.reasons).toEqual(GATES.reasons);
    expect(order.first(job({ flow, ...admitted() }), T0)).toBe("flow");
  });

  it("is refused when its reason is taken, or its place names no gate", () => {
    const order = new GateOrder<WaitReason>(GATES.reasons.map((r) => GATES.rule(r)));
    expect(() => order.add({ ...notBefore, reason: "flow" }, { before: "budget" })).toThrow(/already/);
    expect(() => order.add(notBefore, { before: "later" as WaitReason })).toThrow(/No gate 'later'/);
    expect(order.reasons).toEqual(GATES.reasons);
  });
});
