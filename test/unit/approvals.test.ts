/**
 * Approvals' pure rules (src/core/approvals/approval.ts): which rule a call is under, how decisions meet, the
 * texts.
 */
import { describe, expect, it } from "vitest";
import {
  approvalEntry,
  approvalRuleFor,
  deniedError,
  expiredError,
  meetDecision,
  requested,
  type JobApproval,
} from "../../src/core/approvals/approval";
import { approvalRulesSchema } from "../../src/core/config/approval-rules";

const rules = approvalRulesSchema.parse([
  { tools: ["send_email", "payments__*"], agents: ["researcher"], timeout_seconds: 60 },
  { tools: ["payments__*"] },
]);

describe("approval rules", () => {
  it("match a call by the name it runs as and the agent that makes it, first rule first", () => {
    expect(
      approvalRuleFor(rules, { tool: "send_email", agent: "researcher", args: {}, metadata: null })?.timeout_seconds,
    ).toBe(60);
    expect(approvalRuleFor(rules, { tool: "send_email", agent: "default", args: {}, metadata: null })).toBeNull();
    expect(
      approvalRuleFor(rules, { tool: "payments__refund", agent: "default", args: {}, metadata: null })?.timeout_seconds,
    ).toBe(86_400);
    expect(approvalRuleFor(rules, { tool: "search", agent: "researcher", args: {}, metadata: null })).toBeNull();
    expect(approvalRuleFor([], { tool: "send_email", agent: "default", args: {}, metadata: null })).toBeNull();
  });

  it("refuse `llm`, more than 32 rules, and a deadline past 30 days", () => {
    expect(approvalRulesSchema.safeParse([{ tools: ["llm"] }]).success).toBe(false);
    expect(approvalRulesSchema.safeParse(Array.from({ length: 33 }, () => ({ tools: ["x"] }))).success).toBe(false);
    expect(approvalRulesSchema.safeParse([{ tools: ["x"], timeout_seconds: 2_592_001 }]).success).toBe(false);
  });
});

describe("a decision", () => {
  const open: JobApproval = requested(rules[0]!, "researcher", 1_000);

  it("applies once, then the same again is a repeat and the other a conflict", () => {
    expect(open).toEqual({ agent: "researcher", timeout_seconds: 60, expires_at: 61_000 });
    expect(meetDecision(open, true, "approve", 2_000)).toBe("apply");
    const approved = { ...open, decision: "approve" as const, decided_at: 2_000 };
    expect(meetDecision(approved, false, "approve", 3_000)).toBe("repeat");
    expect(meetDecision(approved, true, "deny", 3_000)).toBe("conflict");
    expect(meetDecision({ ...open, decision: "expired" }, false, "approve", 62_000)).toBe("conflict");
  });

  it("comes too late at its deadline and after it, whether or not the alarm has ended the call yet", () => {
    expect(meetDecision(open, true, "approve", 60_999)).toBe("apply");
    expect(meetDecision(open, true, "deny", 60_999)).toBe("apply");
    // The alarm has not run: the decision finds the deadline passed and ends the call itself.
    expect(meetDecision(open, true, "deny", 61_000)).toBe("expire");
    expect(meetDecision(open, true, "approve", 61_051)).toBe("expire");
    // It has: the call was decided `expired`.
    expect(meetDecision({ ...open, decision: "expired", decided_at: 61_020 }, false, "approve", 61_051)).toBe(
      "conflict",
    );
    // A decision taken in time stands: asking the same again after the deadline is still a repeat.
    expect(meetDecision({ ...open, decision: "approve", decided_at: 60_999 }, true, "approve", 61_051)).toBe("repeat");
  });

  it("is not awaited by a call under no rule, or one that ended before anyone decided", () => {
    expect(meetDecision(null, true, "approve", 2_000)).toBe("not_awaiting");
    expect(meetDecision(open, false, "deny", 2_000)).toBe("not_awaiting");
    expect(meetDecision(open, false, "deny", 61_000)).toBe("not_awaiting");
  });

  it("ends a call with the contract's texts", () => {
    expect(deniedError("alice", "too much")).toBe("The call was denied by alice: too much.");
    expect(deniedError(null, null)).toBe("The call was denied by a person.");
    expect(expiredError(60)).toBe("No approval within 60 s; the call was not made.");
  });

  it("is listed as the job stands: a wait that ended undecided is `cancelled`, long arguments are left out", () => {
    const job = {
      chat_id: "c",
      job_id: "j",
      tool_name: "send_email",
      tool_args: '{"to":"a"}',
      created_at: 1_000,
      metadata: null,
      state: "cancelled",
    };
    expect(approvalEntry(job, open, false)).toMatchObject({
      status: "cancelled",
      tool_args: '{"to":"a"}',
      decided_at: null,
    });
    expect(approvalEntry({ ...job, state: "pending" }, open, true).status).toBe("pending");
    expect(
      approvalEntry({ ...job, tool_args: JSON.stringify({ body: "x".repeat(3000) }) }, open, true).tool_args,
    ).toBeNull();
  });
});
